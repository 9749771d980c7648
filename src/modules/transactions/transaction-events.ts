import type {
  NewTransactionEvent,
  TransactionRow,
  TransactionStatus,
  AttemptOperation,
} from '../../db/schema-transactions.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { CallResult } from './connector-call.ts';
import type { Applied } from './outcomes.ts';

/**
 * The transaction's history (`GET /transactions/{id}/events`): every status change and every
 * connector call with its outcome. Contexts hold codes and amounts, never card data.
 */

export function statusEvent(row: TransactionRow, from: TransactionStatus, now: Date): NewTransactionEvent | null {
  if (row.status === from) return null;
  return event(row, 'transaction-updated-status', { from, to: row.status }, now);
}

export function event(
  row: Pick<TransactionRow, 'merchant_account_id' | 'id'>,
  name: string,
  context: Record<string, unknown>,
  now: Date,
): NewTransactionEvent {
  return {
    merchant_account_id: row.merchant_account_id,
    id: uuidv7(),
    transaction_id: row.id,
    name,
    context: JSON.stringify(context),
    created_at: now,
  };
}

const UNKNOWN_EVENT: Record<AttemptOperation, string> = {
  authorize: 'payment-connector-response-transaction-authorization-failed',
  capture: 'payment-connector-response-transaction-capture-failed',
  void: 'payment-connector-response-transaction-void-failed',
  cancel: 'payment-connector-response-transaction-cancel-failed',
  refund: 'transaction-sync-failed-event',
  increment: 'transaction-modified-event',
};

/** One connector call: which attempt, what was asked, what came back (or that nothing did). */
export function attemptEvent(
  row: TransactionRow,
  attemptId: string,
  operation: AttemptOperation,
  amount: number,
  result: CallResult<{
    errorCode: string | null;
    rawResponseCode: string | null;
    rawResponseDescription: string | null;
  }> | null,
  applied: Applied | null,
  now: Date,
): NewTransactionEvent {
  const answer = result?.ok ? result.value : null;
  return event(
    row,
    applied?.eventName ?? UNKNOWN_EVENT[operation],
    {
      attempt_id: attemptId,
      operation,
      amount,
      payment_service_id: row.payment_service_id,
      outcome: applied ? applied.attemptStatus : 'unknown',
      error_code:
        answer?.errorCode ?? (result && !result.ok ? (result.kind === 'timeout' ? 'timeout' : result.kind) : null),
      raw_response_code: answer?.rawResponseCode ?? null,
      raw_response_description: answer?.rawResponseDescription ?? null,
      duration_ms: result?.ms ?? null,
    },
    now,
  );
}
