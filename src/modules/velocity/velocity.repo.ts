import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import '../../db/schema-velocity.ts';
import { CARD_CAP } from './velocity-window.ts';

export interface VelocityRow {
  merchant_account_id: string;
  writer: string;
  key_mac: string;
  currency: string;
  bucket_start: Date;
  attempts: number;
  declines: number;
  amount: number;
  cards: string[];
}

export interface StoredVelocityRow extends Omit<VelocityRow, 'writer'> {
  updated_at: Date;
}

const COLUMNS = [
  'merchant_account_id',
  'key_mac',
  'currency',
  'bucket_start',
  'attempts',
  'declines',
  'amount',
  'cards',
  'updated_at',
] as const;

/** Rows per statement: 8 parameters each, well under the protocol's 65,535. */
const ROWS_PER_STATEMENT = 1_000;
/** Merchant accounts per read (one parameter each). */
const ACCOUNTS_PER_READ = 1_000;

/**
 * Adds counts to their cells, creating them: the counts of several processes add up, and their
 * card sets merge (at most CARD_CAP, the lowest kept). Rows go in key order, so two processes
 * flushing the same keys lock them in the same order. `updated_at` and `writer` mark the change for
 * the other processes' reads; the new totals come back (the writer does not read them again).
 */
export async function addVelocityCounts(db: Executor, rows: readonly VelocityRow[]): Promise<StoredVelocityRow[]> {
  const totals: StoredVelocityRow[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const part = await db
      .insertInto('velocity_counts')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['merchant_account_id', 'key_mac', 'currency', 'bucket_start']).doUpdateSet({
          attempts: sql`velocity_counts.attempts + excluded.attempts`,
          declines: sql`velocity_counts.declines + excluded.declines`,
          amount: sql`velocity_counts.amount + excluded.amount`,
          cards: sql`(SELECT coalesce(array_agg(c ORDER BY c), '{}') FROM (
            SELECT DISTINCT c FROM unnest(velocity_counts.cards || excluded.cards) AS u (c) ORDER BY c LIMIT ${CARD_CAP}) AS s)`,
          updated_at: sql`now()`,
          writer: sql`excluded.writer`,
        }),
      )
      .returning(COLUMNS)
      .execute();
    totals.push(...part);
  }
  return totals;
}

/** The database's clock: where a process's reads of changes start. */
export async function databaseNow(db: Executor): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT now() AS now`.execute(db);
  return new Date(rows[0]!.now);
}

/** One merchant account's cells of the buckets from `since` on (`before`: up to, not including). */
export async function velocityWindow(
  db: Executor,
  merchantAccountId: string,
  since: Date,
  before: Date | null = null,
): Promise<StoredVelocityRow[]> {
  let query = db
    .selectFrom('velocity_counts')
    .select(COLUMNS)
    .where('merchant_account_id', '=', merchantAccountId)
    .where('bucket_start', '>=', since);
  if (before) query = query.where('bucket_start', '<', before);
  return query.execute();
}

/**
 * The cells of these merchant accounts that other processes than `writer` changed at or after
 * `since`, with the database's clock now.
 */
export async function changedVelocityCounts(
  db: Executor,
  merchantAccountIds: readonly string[],
  since: Date,
  writer: string,
): Promise<{ rows: StoredVelocityRow[]; now: Date }> {
  const now = await databaseNow(db);
  const rows: StoredVelocityRow[] = [];
  for (let i = 0; i < merchantAccountIds.length; i += ACCOUNTS_PER_READ) {
    // One statement per group of accounts; each account's read uses (merchant_account_id, updated_at).
    const part = await db
      .selectFrom('velocity_counts')
      .select(COLUMNS)
      .where('merchant_account_id', 'in', merchantAccountIds.slice(i, i + ACCOUNTS_PER_READ))
      .where('updated_at', '>=', since)
      .where('writer', '<>', writer)
      .execute();
    rows.push(...part);
  }
  return { rows, now };
}

/** Deletes up to `batch` cells of buckets that started before `before`; how many it deleted. */
export async function purgeVelocityBuckets(db: Executor, before: Date, batch = 10_000): Promise<number> {
  const result = await sql`
    DELETE FROM velocity_counts
    WHERE (merchant_account_id, key_mac, currency, bucket_start) IN (
      SELECT merchant_account_id, key_mac, currency, bucket_start
      FROM velocity_counts WHERE bucket_start < ${before} LIMIT ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
