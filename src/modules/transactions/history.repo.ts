import type {
  NewTransactionEvent,
  TransactionEventRow,
  TransactionHistoryTable,
} from '../../db/schema-transactions.ts';
import { insertQuery } from '../../db/insert-query.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import type { Insertable } from 'kysely';

/**
 * A transaction's history (migration 0076, decision 0150) is stored as one `transaction_history`
 * row per write: the events of one statement for one transaction at one time share a row, the
 * first in its columns and the rest in `more`. The view `transaction_events` expands them, one row
 * per event with its own id, and is what every reader selects from.
 */
export async function insertEvents(db: Executor, rows: NewTransactionEvent[]): Promise<void> {
  if (rows.length > 0) await insertEventsQuery(db, rows).execute();
}

/** `rows` must not be empty. */
export function insertEventsQuery(db: Executor, rows: NewTransactionEvent[]) {
  return insertQuery(db, 'transaction_history', historyRows(rows));
}

/** Events without a time share the statement's `now()`, so they share a row too. */
const timeOf = (at: NewTransactionEvent['created_at']) =>
  at === undefined ? '' : at instanceof Date ? at.toISOString() : String(at);

/** The events grouped by transaction and time, in their order; every row has `more` (null for one event). */
export function historyRows(rows: readonly NewTransactionEvent[]): Insertable<TransactionHistoryTable>[] {
  const writes = new Map<string, NewTransactionEvent[]>();
  for (const row of rows) {
    const key = `${row.merchant_account_id}\n${row.transaction_id}\n${timeOf(row.created_at)}`;
    const write = writes.get(key);
    if (write) write.push(row);
    else writes.set(key, [row]);
  }
  return [...writes.values()].map(([first, ...rest]) => ({
    ...first!,
    more:
      rest.length === 0
        ? null
        : // `context` is already JSON text (the column's insert type): it goes in as it is.
          `[${rest.map((e) => `{"id":${JSON.stringify(e.id)},"name":${JSON.stringify(e.name)},"context":${e.context ?? '{}'}}`).join(',')}]`,
  }));
}

/**
 * One keyset page of a transaction's events, newest first (ties in time by id). The sort key's
 * `id` is the view's (an event's own id), so the page also bounds `created_at` alone: that bound
 * is what makes it a range scan of transaction_history_pkey (list-transaction-events.plan.test.ts).
 */
export async function listEvents(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<TransactionEventRow>> {
  return keysetPage(db, eventsOf(db, merchantAccountId, transactionId), {
    columns: ['created_at', 'id'],
    limit,
    position,
    boundFirst: true,
  });
}

export const eventsOf = (db: Executor, merchantAccountId: string, transactionId: string) =>
  db
    .selectFrom('transaction_events')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId);
