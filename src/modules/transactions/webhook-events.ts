import type { Deps } from '../../context.ts';
import type { AttemptRow, RefundRow, TransactionRow } from '../../db/schema-transactions.ts';
import type { WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { emitEvent, eventWrites, type NewEvent } from '../events/events.service.ts';
import { giftCardServiceResource } from '../gift-cards/gift-card-service.ts';
import { redemptionsOfTransaction } from '../gift-cards/gift-card-redemptions.service.ts';
import { antiFraudRefundQueries, antiFraudUpdateQueries } from './anti-fraud-updates/anti-fraud-updates.ts';
import { toCaptureResource } from './capture.schema.ts';
import { toRefundResource } from './refund.schema.ts';
import { toTransactionResource } from './transaction.resource.ts';

/**
 * Webhook events of the transaction engine (docs/webhooks.md), written in the same database
 * transaction as the change (outbox). Snapshots are masked as for a caller without
 * buyers.billing-details.read: a webhook receiver is not a PII-scoped credential. The transaction's
 * anti-fraud service is told what the events report with them (anti-fraud-updates/, decision 0143).
 */

export type TransactionEventKind =
  | 'transaction.created'
  | 'transaction.updated'
  | 'transaction.captured'
  | 'transaction.voided'
  | 'transaction.canceled'
  | 'transaction.settled'
  | 'transaction.disputed'
  | 'transaction.chargeback_reversed';

async function snapshot(tx: Executor, row: TransactionRow): Promise<Record<string, unknown>> {
  const resource = toTransactionResource(row, false);
  if (!row.multi_tender) return resource;
  return {
    ...resource,
    gift_card_redemptions: await redemptionsOfTransaction(tx, row.merchant_account_id, row.id),
    gift_card_service: giftCardServiceResource(row.merchant_account_id),
  };
}

export async function emitTransaction(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  kind: TransactionEventKind,
): Promise<void> {
  await emitEvent(tx, deps, {
    merchantAccountId: row.merchant_account_id,
    kind,
    resourceType: 'transaction',
    resourceId: row.id,
    payload: () => snapshot(tx, row),
  });
  await runAll(deps, antiFraudUpdateQueries(tx, deps, row, kind));
}

/** Runs the anti-fraud reports of an event in the caller's transaction; their job runs once it commits. */
async function runAll(deps: Deps, queries: ReadonlyArray<{ execute(): Promise<unknown> }>): Promise<void> {
  for (const query of queries) await query.execute();
  if (queries.length > 0) deps.queue.pokeSoon();
}

/** `emitTransaction`'s writes, for a caller that runs them with its own (see `eventWrites`, and its `subscriptions`). */
export async function transactionEventWrites(
  tx: Executor,
  deps: Deps,
  row: TransactionRow,
  kind: TransactionEventKind,
  subscriptions?: readonly WebhookSubscriptionRow[],
) {
  const writes = await eventWrites(
    tx,
    deps,
    {
      merchantAccountId: row.merchant_account_id,
      kind,
      resourceType: 'transaction',
      resourceId: row.id,
      payload: () => snapshot(tx, row),
    },
    subscriptions,
  );
  return [...writes, ...antiFraudUpdateQueries(tx, deps, row, kind)];
}

/** `transaction.updated` when the status changed and no more specific kind applies. */
export async function emitStatusChange(
  tx: Tx,
  deps: Deps,
  before: TransactionRow,
  after: TransactionRow,
): Promise<void> {
  if (before.status === after.status) return;
  // Money captured by the change itself (a PIX paid, a direct debit confirmed, an iDEAL approved at
  // the bank, a sale authorized late): the most specific kind, as a capture call's (docs/webhooks.md).
  const kind = after.captured_amount > before.captured_amount ? 'transaction.captured' : 'transaction.updated';
  await emitTransaction(tx, deps, after, kind);
}

export async function emitRefund(
  tx: Tx,
  deps: Deps,
  refund: RefundRow,
  transaction: Pick<TransactionRow, 'external_identifier' | 'anti_fraud_service_id'>,
  kind: 'refund.created' | 'refund.succeeded' | 'refund.failed',
): Promise<void> {
  await emitEvent(tx, deps, {
    merchantAccountId: refund.merchant_account_id,
    kind,
    resourceType: 'refund',
    resourceId: refund.id,
    payload: toRefundResource(refund, transaction),
  });
  await runAll(deps, antiFraudRefundQueries(tx, deps, refund, transaction, kind));
}

/** `emitRefund`'s writes, for a caller that runs them with its own (see `eventWrites`). */
export async function refundEventWrites(
  db: Executor,
  deps: Deps,
  refund: RefundRow,
  transaction: Pick<TransactionRow, 'external_identifier' | 'anti_fraud_service_id'>,
  kind: 'refund.created' | 'refund.succeeded' | 'refund.failed',
) {
  const writes = await eventWrites(db, deps, {
    merchantAccountId: refund.merchant_account_id,
    kind,
    resourceType: 'refund',
    resourceId: refund.id,
    payload: toRefundResource(refund, transaction),
  });
  return [...writes, ...antiFraudRefundQueries(db, deps, refund, transaction, kind)];
}

/** The refund event of a refund's current status (created while processing). */
export function refundKind(status: RefundRow['status']): 'refund.created' | 'refund.succeeded' | 'refund.failed' {
  return status === 'succeeded' ? 'refund.succeeded' : status === 'processing' ? 'refund.created' : 'refund.failed';
}

function captureEvent(attempt: AttemptRow, transaction: TransactionRow): NewEvent {
  const payload = toCaptureResource(attempt, transaction);
  return {
    merchantAccountId: attempt.merchant_account_id,
    kind: `capture.${payload.status}`,
    resourceType: 'capture',
    resourceId: attempt.id,
    payload,
  };
}

/** `capture.<status>` each time a capture's answer is recorded (`pending` too: no answer yet, or pending at the provider). */
export async function emitCapture(tx: Tx, deps: Deps, attempt: AttemptRow, transaction: TransactionRow): Promise<void> {
  await emitEvent(tx, deps, captureEvent(attempt, transaction));
}

/** `emitCapture`'s writes, for a caller that runs them with its own (see `eventWrites`). */
export async function captureEventWrites(db: Executor, deps: Deps, attempt: AttemptRow, transaction: TransactionRow) {
  return eventWrites(db, deps, captureEvent(attempt, transaction));
}
