import type { Deps } from '../../../context.ts';
import type { SettlementRow } from '../../../db/schema-transactions.ts';
import type { WebhookSubscriptionRow } from '../../../db/schema-webhooks.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { activeSubscriptions } from '../../webhook-subscriptions/webhook-subscriptions.service.ts';
import { captureSettlement, settlesCaptures } from './capture-settlement.ts';
import { type CaptureKey, listSettlementsOf, lockTransactionsWithAttempts } from './settlement-batch.repo.ts';
import { writeReportBatch, type BatchLine } from './settlement-writes.ts';
import { settleRefund, settleTransaction } from './settlements.service.ts';

/**
 * Many sandbox settlements at once: the `settle-transaction` jobs a worker claimed together
 * (decision 0151). Where one settlement takes a database transaction of four statements, a batch
 * takes one of four statements in all.
 */

/** A sandbox settlement to make: the `settle-transaction` job's payload. */
export interface SettlementOrder {
  merchant_account_id: string;
  transaction_id: string;
  capture_id?: string;
  refund_id?: string;
}

interface Log {
  warn(obj: object, msg?: string): void;
}

/**
 * Settles `orders` (by job id), each once, and returns the failures by job id. The capture
 * settlements of distinct transactions go in one database transaction (`settleCaptures`); a
 * refund's, and a second one of a transaction, run alone after it, as one job would. When the batch
 * fails (one record refused, a lost connection), nothing of it was written and its orders run one
 * by one: only an order that fails alone fails, to be retried on its own with its job's backoff.
 */
export async function settleMany(
  deps: Deps,
  orders: ReadonlyArray<{ jobId: string; order: SettlementOrder }>,
  log: Log,
): Promise<Map<string, unknown>> {
  const batched: (typeof orders)[number][] = [];
  const alone: (typeof orders)[number][] = [];
  const seen = new Set<string>();
  for (const item of orders) {
    const key = `${item.order.merchant_account_id}:${item.order.transaction_id}`;
    if (item.order.refund_id || seen.has(key)) alone.push(item);
    else {
      seen.add(key);
      batched.push(item);
    }
  }
  if (batched.length > 1) {
    try {
      await settleCaptures(
        deps,
        batched.map(({ order }) => keyOf(order)),
      );
    } catch (error) {
      log.warn({ err: error, settlements: batched.length }, 'a batch of settlements failed: settling them one by one');
      alone.unshift(...batched);
    }
  } else alone.unshift(...batched);
  const failures = new Map<string, unknown>();
  for (const { jobId, order } of alone) {
    try {
      await settleOne(deps, order);
    } catch (error) {
      failures.set(jobId, error);
    }
  }
  return failures;
}

const keyOf = (order: SettlementOrder): CaptureKey => ({
  merchantAccountId: order.merchant_account_id,
  transactionId: order.transaction_id,
  captureAttemptId: order.capture_id ?? null,
});

/** One settlement in its own database transaction (the job's single path). */
export async function settleOne(deps: Deps, order: SettlementOrder): Promise<void> {
  if (order.refund_id) await settleRefund(deps, order.merchant_account_id, order.transaction_id, order.refund_id);
  else await settleTransaction(deps, order.merchant_account_id, order.transaction_id, order.capture_id ?? null);
}

/**
 * The capture settlements `keys` (one a transaction) in one database transaction: the rows locked
 * in one statement, their settlements read in another, each settlement worked out as
 * `settleTransaction` works out one, and every write in a third (`writeReportBatch`). All or
 * nothing; idempotent, as one is: a settlement already recorded is not written again.
 */
export async function settleCaptures(deps: Deps, keys: readonly CaptureKey[]): Promise<void> {
  // Read before BEGIN (jobs/README.md: a transaction never reads on the pool).
  const subscriptions = new Map<string, readonly WebhookSubscriptionRow[]>();
  for (const { merchantAccountId } of keys)
    if (!subscriptions.has(merchantAccountId))
      subscriptions.set(merchantAccountId, await activeSubscriptions(deps.db, deps, merchantAccountId));
  await withTransaction(deps.db, async (tx) => {
    const locked = (await lockTransactionsWithAttempts(tx, keys)).filter(({ row }) => settlesCaptures(deps, row));
    const settlements = await listSettlementsOf(
      tx,
      locked.map(({ row }) => ({ merchantAccountId: row.merchant_account_id, transactionId: row.id })),
    );
    const byTransaction = new Map<string, SettlementRow[]>();
    for (const s of settlements) {
      const key = `${s.merchant_account_id}:${s.transaction_id}`;
      byTransaction.set(key, [...(byTransaction.get(key) ?? []), s]);
    }
    const now = new Date();
    const lines: BatchLine[] = [];
    for (const { row, attempt, captureAttemptId } of locked) {
      const own = byTransaction.get(`${row.merchant_account_id}:${row.id}`) ?? [];
      const settlement = captureSettlement(row, captureAttemptId, attempt, own, now);
      if (settlement) lines.push({ ...settlement, subscriptions: subscriptions.get(row.merchant_account_id)! });
    }
    await writeReportBatch(tx, deps, lines);
  });
}
