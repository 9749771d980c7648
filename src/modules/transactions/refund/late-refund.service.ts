import type { InboundWebhookAction } from '../../../connectors/connector-webhooks.ts';
import type { RefundOutcome } from '../../../connectors/connector.ts';
import type { Deps } from '../../../context.ts';
import type { AttemptRow, AttemptStatus, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import {
  attemptPatch,
  callConnector,
  connectorOfTransaction,
  notificationUrlOf,
  paymentHint,
  type BoundConnector,
  type CallResult,
} from '../connector-call.ts';
import { nextCheckAt } from '../outcomes.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { listUnpaidAuthorizations } from './late-capture.repo.ts';
import { capturesAtAuthorization } from '../review/review-hold.ts';

type Log = {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
};

/**
 * A sale paid at the provider after its transaction closed unpaid (a PIX paid after
 * `approval_expires_at`, an iDEAL approved at the bank after it): the buyer's money is at the
 * provider for a transaction recorded as failed. Neither method can be voided, so the engine
 * refunds it in full at the provider (decision 0053 voids what can be voided; this is its
 * counterpart for sales). The transaction stays as it is; the refund is a `refund` attempt that
 * compensates the authorize attempt (one per authorization: the unique index of late voids), with
 * its own events, never a refund resource (the transaction captured nothing).
 */

/** Statuses of a transaction that ended without money: a capture reported now is late. */
const CLOSED_UNPAID = new Set(['authorization_failed', 'authorization_declined']);

/** Whether the action reports money captured at the provider: a capture, or a sale's authorization. */
export function reportsCapture(row: TransactionRow, action: InboundWebhookAction): boolean {
  return (
    action.kind === 'capture_succeeded' || (action.kind === 'authorization_succeeded' && capturesAtAuthorization(row))
  );
}

/**
 * The authorize attempt a late capture report is about, or null: the transaction closed unpaid,
 * nothing captured, the attempt on the reporting service ended without money and knows this
 * payment (or no provider id yet: a redirect whose buyer never came back).
 */
export async function lateCaptureOf(
  tx: Tx,
  row: TransactionRow,
  paymentServiceId: string,
  providerTransactionId: string,
): Promise<AttemptRow | null> {
  if (!CLOSED_UNPAID.has(row.status) || row.captured_amount > 0) return null;
  const attempts = await listUnpaidAuthorizations(tx, row.merchant_account_id, row.id, paymentServiceId);
  return (
    attempts.find((a) => a.provider_reference === providerTransactionId) ??
    attempts.find((a) => a.provider_reference === null) ??
    null
  );
}

/**
 * Called in the transaction that received the report: the authorize attempt is recorded as what
 * it became (`succeeded`, `late_outcome`, the provider's id of the payment, also on the transaction
 * when it had none), an event, a warning, and the `refund-late-capture` job, keyed by the attempt
 * so a redelivered report enqueues nothing more.
 */
export async function scheduleLateRefund(
  tx: Tx,
  deps: Deps,
  log: Log,
  row: TransactionRow,
  authorization: AttemptRow,
  providerTransactionId: string,
  source: 'webhook' | 'sync',
): Promise<void> {
  const m = row.merchant_account_id;
  await repo.updateAttempt(tx, m, authorization.id, {
    status: 'succeeded',
    error_code: 'late_outcome',
    next_check_at: null,
    provider_reference: authorization.provider_reference ?? providerTransactionId,
  });
  if (!row.payment_service_transaction_id)
    await repo.updateTransaction(tx, m, row.id, { payment_service_transaction_id: providerTransactionId });
  await repo.insertEvents(tx, [
    event(
      row,
      'transaction-late-capture-refund-scheduled',
      { attempt_id: authorization.id, amount: refundableOf(row), currency: row.currency, source },
      new Date(),
    ),
  ]);
  log.warn(
    { transactionId: row.id, attemptId: authorization.id, status: row.status, source },
    'a payment of a closed transaction was captured at the provider; it is refunded in full',
  );
  await deps.queue.enqueue(
    tx,
    'refund-late-capture',
    { merchant_account_id: m, transaction_id: row.id, attempt_id: authorization.id },
    { jobKey: `refund-late-capture:${m}:${authorization.id}` },
  );
}

/** What the late capture took from the buyer: the transaction's amount paid by its payment method. */
const refundableOf = (row: TransactionRow) => row.amount - row.gift_card_amount;

interface Planned {
  row: TransactionRow;
  attempt: AttemptRow;
  bound: BoundConnector;
  /** The provider's id of the payment refunded. */
  paymentId: string;
}

/**
 * Phase 1: records the `refund` attempt (its id is the provider's idempotency key) before the call.
 * Null when there is nothing to send: no provider id, or a refund already recorded. One left
 * `in_flight` (the job died during or after its call) is never sent again: a provider that takes
 * no idempotency key of ours (dLocal) would refund twice. It becomes `unknown` and reconciliation
 * asks the provider, or its refund notification settles it.
 */
async function recordRefundAttempt(
  deps: Deps,
  m: string,
  transactionId: string,
  authorizeAttemptId: string,
  log: Log,
): Promise<Planned | null> {
  return withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, m, transactionId, { forUpdate: true });
    const authorization = await repo.findAttempt(tx, m, authorizeAttemptId);
    if (!row || authorization?.transaction_id !== row.id || !authorization.provider_reference) return null;
    const existing = await repo.findCompensatingAttempt(tx, m, authorizeAttemptId);
    if (existing?.status === 'in_flight') {
      await repo.updateAttempt(tx, m, existing.id, { status: 'unknown', next_check_at: new Date() });
      log.warn(
        { transactionId, attemptId: existing.id },
        'the refund of a late capture was interrupted; reconciliation asks the provider, it is not sent again',
      );
    }
    if (existing) return null;
    const attempt = await repo.insertAttempt(tx, {
      merchant_account_id: m,
      id: uuidv7(),
      transaction_id: row.id,
      operation: 'refund',
      status: 'in_flight',
      amount: refundableOf(row),
      payment_service_id: authorization.payment_service_id,
      // The provider's refund id once it answers (how its refund webhook is matched).
      provider_reference: null,
      compensates_attempt_id: authorizeAttemptId,
      next_check_at: nextCheckAt(0, new Date()),
    });
    const bound = await connectorOfTransaction(tx, deps, row);
    return { row, attempt, bound, paymentId: authorization.provider_reference };
  });
}

const STATUS: Record<RefundOutcome['status'], AttemptStatus> = {
  succeeded: 'succeeded',
  processing: 'pending',
  declined: 'declined',
  failed: 'failed',
};

/** The refund attempt after its call; a timeout is unknown (reconciliation asks), no answer otherwise failed. */
export function lateRefundAttemptPatch(result: CallResult<RefundOutcome>, now: Date) {
  const status: AttemptStatus | null = result.ok
    ? STATUS[result.value.status]
    : result.kind === 'timeout'
      ? null
      : 'failed';
  return attemptPatch(
    result,
    status ? { attemptStatus: status } : null,
    nextCheckAt(0, now),
    result.ok ? result.value.providerRefundId : null,
  );
}

const OUTCOME_EVENT: Record<AttemptStatus, string> = {
  succeeded: 'transaction-late-capture-refunded',
  pending: 'transaction-late-capture-refund-pending',
  unknown: 'transaction-late-capture-refund-pending',
  in_flight: 'transaction-late-capture-refund-pending',
  declined: 'transaction-late-capture-refund-failed',
  failed: 'transaction-late-capture-refund-failed',
};

/**
 * The history event of a late capture's refund outcome (from the job's call, or later from
 * reconciliation or the provider's refund webhook), and a log line; a refused refund is logged as
 * an error: the buyer's money is still at the provider, an operator refunds it there.
 */
export async function recordLateRefundOutcome(
  tx: Tx,
  log: Log,
  row: TransactionRow,
  attempt: Pick<AttemptRow, 'id' | 'amount' | 'compensates_attempt_id'>,
  outcome: { status: AttemptStatus; errorCode: string | null; rawResponseCode: string | null; ms?: number },
  now: Date,
): Promise<void> {
  await repo.insertEvents(tx, [
    event(
      row,
      OUTCOME_EVENT[outcome.status],
      {
        attempt_id: attempt.id,
        operation: 'refund',
        late_capture_attempt_id: attempt.compensates_attempt_id,
        amount: attempt.amount,
        currency: row.currency,
        payment_service_id: row.payment_service_id,
        outcome: outcome.status,
        error_code: outcome.errorCode,
        raw_response_code: outcome.rawResponseCode,
        ...(outcome.ms === undefined ? {} : { duration_ms: outcome.ms }),
      },
      now,
    ),
  ]);
  const facts = { transactionId: row.id, attemptId: attempt.id, amount: attempt.amount, errorCode: outcome.errorCode };
  if (outcome.status === 'declined' || outcome.status === 'failed')
    (log.error ?? log.warn).call(
      log,
      facts,
      'the refund of a late capture was refused: the buyer paid a closed transaction and the money is still at the payment service; refund it there',
    );
  else if (outcome.status === 'succeeded') log.info(facts, 'the late capture of a closed transaction was refunded');
}

/**
 * The `refund-late-capture` job: record the refund attempt, call the connector outside any database
 * transaction (STYLE D4), record the outcome on the attempt and in the history.
 */
export async function refundLateCaptureNow(
  deps: Deps,
  m: string,
  transactionId: string,
  authorizeAttemptId: string,
  log: Log,
): Promise<void> {
  const planned = await recordRefundAttempt(deps, m, transactionId, authorizeAttemptId, log);
  if (!planned) return;
  const { row, attempt, bound, paymentId } = planned;
  const result = await callConnector(
    () =>
      bound.connector.refund({
        idempotencyKey: attempt.id,
        credentials: bound.credentials,
        options: bound.options,
        payment: paymentHint(row),
        providerTransactionId: paymentId,
        // The transaction's reference, as reconciliation's status query sends it with the same key.
        reference: uuidToBase62(row.id),
        amount: attempt.amount,
        currency: row.currency,
        reason: null,
        notificationUrl: notificationUrlOf(deps, row),
      }),
    log,
  );
  await withTransaction(deps.db, async (tx) => {
    await repo.findTransaction(tx, m, transactionId, { forUpdate: true });
    const current = await repo.findAttempt(tx, m, attempt.id, { forUpdate: true });
    // Reconciliation or the provider's refund webhook answered it meanwhile.
    if (current?.status !== 'in_flight') return;
    const now = new Date();
    const patch = lateRefundAttemptPatch(result, now);
    await repo.updateAttempt(tx, m, attempt.id, patch);
    await recordLateRefundOutcome(
      tx,
      log,
      row,
      attempt,
      { status: patch.status, errorCode: patch.error_code, rawResponseCode: patch.raw_response_code, ms: result.ms },
      now,
    );
  });
}
