import { sql } from 'kysely';
import type { ChargebackRow, TransactionEventRow } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';

/** The names of an anti-fraud report's trace entries (the spec's event names). */
export const UPDATE_SENT = 'anti-fraud-transaction-status-update';
export const UPDATE_FAILED = 'anti-fraud-transaction-status-update-error';

/** The trace entries of one report (its attempts), by its `update_key`. */
export async function listUpdateEntries(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  updateKey: string,
): Promise<TransactionEventRow[]> {
  // The transaction's own events (the view over transaction_history_pkey, decision 0150): a handful of rows.
  return db
    .selectFrom('transaction_events')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('name', 'in', [UPDATE_SENT, UPDATE_FAILED])
    .where(sql<string>`context->>'update_key'`, '=', updateKey)
    .execute();
}

/** The transaction's latest chargeback report line, if a settlement report brought one. */
export async function latestChargeback(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<ChargebackRow | undefined> {
  return db
    .selectFrom('chargebacks')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('kind', '=', 'chargeback')
    .orderBy('posted_at', 'desc')
    .executeTakeFirst();
}
