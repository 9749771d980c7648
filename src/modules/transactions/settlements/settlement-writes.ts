import type { Compilable, Insertable } from 'kysely';
import type { Deps } from '../../../context.ts';
import type { NewTransactionEvent, SettlementsTable, TransactionRow } from '../../../db/schema-transactions.ts';
import type { WebhookSubscriptionRow } from '../../../db/schema-webhooks.ts';
import type { Tx } from '../../../db/transaction.ts';
import { runWrites } from '../../../db/write-batch.ts';
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
export function settlementRecordQuery(tx: Tx, record: Insertable<SettlementsTable>): Compilable<unknown> {
  return repo.insertSettlementQuery(tx, {
    exchange_rate: null,
    interchange: null,
    markup: null,
    scheme_fee: null,
    ...record,
  });
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
