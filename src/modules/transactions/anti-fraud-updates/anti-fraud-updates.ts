import type { Deps } from '../../../context.ts';
import type { RefundRow, TransactionRow, TransactionStatus } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';
import type { JobPayload } from '../../../jobs/payloads.ts';

/**
 * What a transaction's anti-fraud service is told after its decision (decision 0143), enqueued with
 * the transaction's own webhook events (webhook-events.ts): in the same database transaction, or
 * the same batched statement, as the change it reports, so a committed change is never left
 * untold and a rolled-back one is never told. Only a transaction whose configured service holds
 * its order (`anti_fraud_service_id`: it decided accept or review) has anything to tell.
 */

export type AntiFraudUpdateKind = JobPayload<'send-anti-fraud-update'>['update'];

/** The transaction's state on the event, as a report; a complete table (STYLE E4). */
const AUTHORIZATION = {
  processing: null,
  buyer_approval_pending: null,
  authorization_succeeded: 'approved',
  capture_pending: 'approved',
  capture_succeeded: 'approved',
  authorization_declined: 'declined',
  authorization_failed: 'declined',
  authorization_voided: null,
  authorization_void_pending: null,
} as const satisfies Record<TransactionStatus, AntiFraudUpdateKind | null>;

/** The report a transaction webhook event stands for, or null. */
export function antiFraudUpdateOf(kind: string, status: TransactionStatus): AntiFraudUpdateKind | null {
  switch (kind) {
    case 'transaction.created':
    case 'transaction.updated':
    case 'transaction.captured':
      return AUTHORIZATION[status];
    case 'transaction.voided':
    case 'transaction.canceled':
      return 'canceled';
    case 'transaction.disputed':
      return 'chargeback';
    default:
      return null;
  }
}

/**
 * One report per transaction and kind, one per refund: the authorization's outcome is told once
 * (approved or declined, whichever came first), so a later capture or increment adds nothing.
 */
export const updateKeyOf = (update: AntiFraudUpdateKind, refundId?: string): string =>
  update === 'refunded'
    ? `refunded:${refundId}`
    : update === 'approved' || update === 'declined'
      ? 'authorization'
      : update;

function enqueueQuery(
  db: Executor,
  deps: Deps,
  row: Pick<TransactionRow, 'merchant_account_id' | 'id'>,
  update: AntiFraudUpdateKind,
  refundId?: string,
) {
  const payload = {
    merchant_account_id: row.merchant_account_id,
    transaction_id: row.id,
    update,
    ...(refundId ? { refund_id: refundId } : {}),
  };
  // The key keeps a second event of the same kind (a capture after the approval) from a second job.
  const jobKey = `send-anti-fraud-update:${row.merchant_account_id}:${row.id}:${updateKeyOf(update, refundId)}`;
  return deps.queue.enqueueQuery(db, 'send-anti-fraud-update', payload, { jobKey });
}

/** The job that reports a transaction webhook event to the anti-fraud service, if there is one to send. */
export function antiFraudUpdateQueries(db: Executor, deps: Deps, row: TransactionRow, kind: string) {
  if (!row.anti_fraud_service_id) return [];
  const update = antiFraudUpdateOf(kind, row.status);
  return update ? [enqueueQuery(db, deps, row, update)] : [];
}

/** A refund that succeeded, reported once. */
export function antiFraudRefundQueries(
  db: Executor,
  deps: Deps,
  refund: RefundRow,
  transaction: Pick<TransactionRow, 'anti_fraud_service_id'>,
  kind: string,
) {
  if (!transaction.anti_fraud_service_id || kind !== 'refund.succeeded') return [];
  const row = { merchant_account_id: refund.merchant_account_id, id: refund.transaction_id };
  return [enqueueQuery(db, deps, row, 'refunded', refund.id)];
}
