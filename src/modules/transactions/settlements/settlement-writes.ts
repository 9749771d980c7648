import type { Compilable, Insertable } from 'kysely';
import type { Deps } from '../../../context.ts';
import type {
  ChargebacksTable,
  NewTransactionEvent,
  SettlementsTable,
  TransactionRow,
} from '../../../db/schema-transactions.ts';
import type { WebhookSubscriptionRow } from '../../../db/schema-webhooks.ts';
import type { Tx } from '../../../db/transaction.ts';
import { runWrites } from '../../../db/write-batch.ts';
import { insertChargebacksQuery } from '../chargebacks/chargebacks.repo.ts';
import { predictRow } from '../predicted-row.ts';
import * as repo from '../transactions.repo.ts';
import { transactionEventWrites, type TransactionEventKind } from '../webhook-events.ts';

/**
 * The one write path of settlement report lines, shared by the sandbox's simulation
 * (settlements.service.ts) and the providers' reports (provider-lines.service.ts). The caller holds
 * the transaction's row lock (`FOR UPDATE`, taken first by every settlement of it) and has read
 * what it needs under it.
 */

/** The transaction's change a line makes: its patch, rendered into the webhook events `kinds` as the update will leave it. */
export interface SettledChange {
  row: TransactionRow;
  patch: repo.TransactionPatch;
  now: Date;
  kinds: TransactionEventKind[];
}

/** A settlement record's insert; the fee breakdown defaults to none. */
export function settlementRecordQuery(
  tx: Tx,
  records: Insertable<SettlementsTable> | ReadonlyArray<Insertable<SettlementsTable>>,
): Compilable<unknown> {
  const rows = (Array.isArray(records) ? records : [records]) as ReadonlyArray<Insertable<SettlementsTable>>;
  return repo.insertSettlementQuery(
    tx,
    rows.map((record) => ({ exchange_rate: null, interchange: null, markup: null, scheme_fee: null, ...record })),
  );
}

/**
 * The lines' inserts (`lines`: settlement records, chargebacks, a refund's `settled`), the
 * transaction's change and its webhook events, and the history `events`, in one statement
 * (src/db/write-batch.ts). `subscriptions`: the merchant's webhook subscriptions, read before the
 * database transaction began (from the read cache, as a capture's answer reads them). Read here, a
 * cache miss would wait for a pool connection while this transaction holds one: with as many jobs
 * at once as the pool has connections (or on PGlite, which has one), for ever.
 */
export async function writeReportLines(
  tx: Tx,
  deps: Deps,
  subscriptions: readonly WebhookSubscriptionRow[],
  lines: Array<Compilable<unknown>>,
  change: SettledChange | null,
  events: NewTransactionEvent[],
): Promise<void> {
  const writes: Array<Compilable<unknown>> = [...lines];
  let outboxes = 0;
  if (change) {
    const { row: txn, patch, now, kinds } = change;
    const expected = predictRow(txn, patch, now).row;
    writes.push(repo.updateTransactionQuery(tx, txn.merchant_account_id, txn.id, patch, now));
    for (const kind of kinds) {
      const outbox = await transactionEventWrites(tx, deps, expected, kind, subscriptions);
      outboxes += outbox.length;
      writes.push(...outbox);
    }
  }
  if (events.length > 0) writes.push(repo.insertEventsQuery(tx, events));
  await runWrites(tx, writes);
  // Webhook deliveries (an event is written only with them) or anti-fraud reports were queued.
  if (outboxes > 0) deps.queue.pokeSoon();
}

/** One line of a batch (`writeReportBatch`): a capture settlement of one transaction, with its merchant's subscriptions. */
export interface BatchLine {
  record: Insertable<SettlementsTable>;
  disputes: Array<Insertable<ChargebacksTable>>;
  change: SettledChange;
  events: NewTransactionEvent[];
  subscriptions: readonly WebhookSubscriptionRow[];
}

/**
 * The lines of many transactions (one line each: two writes must not touch one row) in one
 * statement, as `writeReportLines` writes one: every record in one insert, every history entry in
 * another, each transaction's update and its webhook events and anti-fraud reports (decision 0151).
 */
export async function writeReportBatch(tx: Tx, deps: Deps, lines: readonly BatchLine[]): Promise<void> {
  if (lines.length === 0) return;
  const disputes = lines.flatMap((line) => line.disputes);
  const writes: Array<Compilable<unknown>> = [
    settlementRecordQuery(
      tx,
      lines.map((line) => line.record),
    ),
  ];
  if (disputes.length > 0) writes.push(insertChargebacksQuery(tx, disputes));
  let outboxes = 0;
  for (const { change, subscriptions } of lines) {
    const { row: txn, patch, now, kinds } = change;
    const expected = predictRow(txn, patch, now).row;
    writes.push(repo.updateTransactionQuery(tx, txn.merchant_account_id, txn.id, patch, now));
    for (const kind of kinds) {
      const outbox = await transactionEventWrites(tx, deps, expected, kind, subscriptions);
      outboxes += outbox.length;
      writes.push(...outbox);
    }
  }
  writes.push(
    repo.insertEventsQuery(
      tx,
      lines.flatMap((line) => line.events),
    ),
  );
  await runWrites(tx, writes);
  if (outboxes > 0) deps.queue.pokeSoon();
}
