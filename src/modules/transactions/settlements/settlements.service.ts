import type { Compilable, Insertable } from 'kysely';
import type { Deps } from '../../../context.ts';
import type { ChargebacksTable, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor, Tx } from '../../../db/transaction.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { insertChargebacksQuery } from '../chargebacks/chargebacks.repo.ts';
import { activeSubscriptions } from '../../webhook-subscriptions/webhook-subscriptions.service.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { alreadySettled, captureSettlement, sandboxReport, settlesCaptures } from './capture-settlement.ts';
import { settlementRecordQuery, writeReportLines } from './settlement-writes.ts';
import { simulatesSettlements } from './settlement-source.ts';

/** Settlement of the sandbox: the payment service "reports" a capture settled after this delay. */
export function settlementDelayMs(deps: Deps): number {
  return deps.config.settlementDelaySeconds * 1000;
}

/**
 * Enqueues a sandbox settlement in the caller's transaction (it runs after commit): of one capture
 * (its attempt: a capture, or an authorization that captured), or, without one, of the captured
 * amount not settled yet (an authorize-and-capture transaction). Only for the sandbox connectors
 * (settlement-source.ts): a real connector's records come from its provider's reports.
 */
export async function scheduleSettlement(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  captureAttemptId?: string,
): Promise<void> {
  for (const query of settlementQueries(tx, deps, row, captureAttemptId)) await query.execute();
  deps.queue.pokeSoon();
}

/** `scheduleSettlement`'s insert (none for a real connector), for a caller that runs it with its other writes (src/db/write-batch.ts); poke the queue after. */
export function settlementQueries(db: Executor, deps: Deps, row: TransactionRow, captureAttemptId?: string) {
  if (!simulatesSettlements(deps, row)) return [];
  return [
    deps.queue.enqueueQuery(
      db,
      'settle-transaction',
      {
        merchant_account_id: row.merchant_account_id,
        transaction_id: row.id,
        ...(captureAttemptId ? { capture_id: captureAttemptId } : {}),
      },
      {
        jobKey: captureAttemptId
          ? `settle-capture:${row.merchant_account_id}:${captureAttemptId}`
          : `settle-transaction:${row.merchant_account_id}:${row.id}`,
        runAt: new Date(Date.now() + settlementDelayMs(deps)),
      },
    ),
  ];
}

/** The transaction `FOR UPDATE`, without an attempt. */
async function lockedAlone(tx: Tx, merchantAccountId: string, transactionId: string) {
  const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
  return row && { row, attempt: null };
}

/**
 * Settles one capture (or, without `captureAttemptId`, the captured amount not settled yet) once:
 * a settlement record, the transaction's `settled` fields (`settled_amount` is every settlement so
 * far, captures net of refunds), an event. The first settlement of a dispute test card also
 * posts a chargeback (and, for the reversed one, its reversal) on the same report. Idempotent: a second run finds the settlement and changes nothing.
 *
 * The transaction's row lock is taken first, by every settlement of it (this and `settleRefund`),
 * so the settlements read under it are all there are: the writes (the record, the transaction, the
 * webhook events rendered from the row the update leaves, the history) then go in one statement
 * (src/db/write-batch.ts). A record written anyway by another path would fail that statement on
 * `settlements_once_idx`, and the job's retry would find it.
 */
export async function settleTransaction(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  captureAttemptId: string | null = null,
): Promise<void> {
  const subscriptions = await activeSubscriptions(deps.db, deps, merchantAccountId);
  await withTransaction(deps.db, async (tx) => {
    // The capture's attempt with the row lock (lockTransactionWithAttempt says why it may be).
    const locked = captureAttemptId
      ? await repo.lockTransactionWithAttempt(tx, merchantAccountId, transactionId, captureAttemptId)
      : await lockedAlone(tx, merchantAccountId, transactionId);
    if (!locked || !settlesCaptures(deps, locked.row)) return;
    const settlements = await repo.listSettlements(tx, merchantAccountId, locked.row.id);
    const settlement = captureSettlement(locked.row, captureAttemptId, locked.attempt, settlements, new Date());
    if (!settlement) return;
    await writeReportLines(
      tx,
      deps,
      subscriptions,
      [settlementRecordQuery(tx, settlement.record), ...disputeWrites(tx, settlement.disputes)],
      settlement.change,
      settlement.events,
    );
  });
}

/** The insert of the dispute lines a settlement report posts, if any. */
function disputeWrites(tx: Tx, lines: Array<Insertable<ChargebacksTable>>): Array<Compilable<unknown>> {
  return lines.length > 0 ? [insertChargebacksQuery(tx, lines)] : [];
}

/** Enqueues the sandbox settlement of a succeeded refund (a refund settlement) of `row` in the caller's transaction; none for a real connector. */
export async function scheduleRefundSettlement(
  tx: Tx,
  deps: Deps,
  refund: { merchant_account_id: string; transaction_id: string; id: string },
  row: TransactionRow,
): Promise<void> {
  for (const query of refundSettlementQueries(tx, deps, refund, row)) await query.execute();
  deps.queue.pokeSoon();
}

/** `scheduleRefundSettlement`'s insert (none for a real connector), for a caller that runs it with its other writes (src/db/write-batch.ts). */
export function refundSettlementQueries(
  db: Executor,
  deps: Deps,
  refund: { merchant_account_id: string; transaction_id: string; id: string },
  row: TransactionRow,
) {
  if (!simulatesSettlements(deps, row)) return [];
  return [
    deps.queue.enqueueQuery(
      db,
      'settle-transaction',
      { merchant_account_id: refund.merchant_account_id, transaction_id: refund.transaction_id, refund_id: refund.id },
      {
        jobKey: `settle-refund:${refund.merchant_account_id}:${refund.id}`,
        runAt: new Date(Date.now() + settlementDelayMs(deps)),
      },
    ),
  ];
}

/**
 * A refund settlement: a settlement record of the refund (negative amount, no commission) once,
 * the refund `settled`, and, when the transaction has settled already, its net `settled_amount`
 * goes down by the refund.
 * Written as `settleTransaction` writes, under the transaction's row lock.
 */
export async function settleRefund(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  refundId: string,
): Promise<void> {
  const subscriptions = await activeSubscriptions(deps.db, deps, merchantAccountId);
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    const refund = await repo.findRefund(tx, merchantAccountId, refundId, transactionId);
    if (
      !row ||
      !refund ||
      refund.status !== 'succeeded' ||
      refund.target_type !== 'payment-method' ||
      !simulatesSettlements(deps, row)
    )
      return;
    if (alreadySettled(await repo.listSettlements(tx, merchantAccountId, row.id), null, refund.id)) return;
    const now = new Date();
    const settlementId = uuidv7();
    const record = {
      merchant_account_id: merchantAccountId,
      id: settlementId,
      transaction_id: row.id,
      refund_id: refund.id,
      payment_service_id: row.payment_service_id,
      currency: refund.currency,
      amount: -refund.amount,
      commission: 0,
      ...sandboxReport(now),
    };
    const update = row.settled
      ? {
          row,
          patch: { settled_amount: row.settled_amount - refund.amount },
          now,
          kinds: ['transaction.settled' as const],
        }
      : null;
    const events = [
      event(
        row,
        'payment-connector-report-transaction-settled',
        { settlement_id: settlementId, refund_id: refund.id, amount: -refund.amount, currency: refund.currency },
        now,
      ),
    ];
    await writeReportLines(
      tx,
      deps,
      subscriptions,
      [settlementRecordQuery(tx, record), repo.markRefundSettledQuery(tx, merchantAccountId, refund.id, now)],
      update,
      events,
    );
  });
}
