import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import '../../db/schema-routing-stats.ts';

export interface StatsRow {
  merchant_account_id: string;
  payment_service_id: string;
  dimension_key: string;
  bucket_start: Date;
  successes: number;
  failures: number;
  errors: number;
}

/** Rows per statement: 7 parameters each, well under the protocol's 65,535. */
const ROWS_PER_STATEMENT = 1_000;

/**
 * Adds counts to their buckets, creating them: counts written by several processes add up. The
 * rows go in key order, so two processes flushing the same keys lock them in the same order.
 */
export async function addCounts(db: Executor, rows: readonly StatsRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('routing_stats')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['merchant_account_id', 'payment_service_id', 'dimension_key', 'bucket_start']).doUpdateSet({
          successes: sql`routing_stats.successes + excluded.successes`,
          failures: sql`routing_stats.failures + excluded.failures`,
          errors: sql`routing_stats.errors + excluded.errors`,
        }),
      )
      .execute();
  }
}

/** One merchant account's counts per service and key, summed over the buckets from `since` on. */
export async function windowCounts(
  db: Executor,
  merchantAccountId: string,
  since: Date,
): Promise<
  Array<{ payment_service_id: string; dimension_key: string; successes: number; failures: number; errors: number }>
> {
  const rows = await db
    .selectFrom('routing_stats')
    .select(['payment_service_id', 'dimension_key'])
    .select((eb) => [
      eb.fn.sum<string>('successes').as('successes'),
      eb.fn.sum<string>('failures').as('failures'),
      eb.fn.sum<string>('errors').as('errors'),
    ])
    .where('merchant_account_id', '=', merchantAccountId)
    .where('bucket_start', '>=', since)
    .groupBy(['payment_service_id', 'dimension_key'])
    .execute();
  return rows.map((r) => ({
    ...r,
    successes: Number(r.successes),
    failures: Number(r.failures),
    errors: Number(r.errors),
  }));
}

/** Deletes up to `batch` buckets that started before `before`; how many it deleted. */
export async function purgeBuckets(db: Executor, before: Date, batch = 10_000): Promise<number> {
  const result = await sql`
    DELETE FROM routing_stats
    WHERE (merchant_account_id, payment_service_id, dimension_key, bucket_start) IN (
      SELECT merchant_account_id, payment_service_id, dimension_key, bucket_start
      FROM routing_stats WHERE bucket_start < ${before} LIMIT ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
