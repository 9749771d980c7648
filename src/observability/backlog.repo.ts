import { sql } from 'kysely';
import type { Executor } from '../db/transaction.ts';

/**
 * Instance-wide backlog figures for the metrics endpoint. They read no merchant data (counts and
 * the oldest timestamps only), across every merchant account by design: an operator's view. Both
 * queries read partial indexes that hold only unfinished rows (jobs_due_idx,
 * webhook_deliveries_order_idx), so a scrape costs the size of the backlog, not of the history.
 */

export interface JobQueueRow {
  name: string;
  /** `due`: queued and due now; `scheduled`: queued for later; `running`: claimed by a worker. */
  state: 'due' | 'scheduled' | 'running';
  count: number;
  /** Seconds since the oldest job in this state became due (0 unless `due`). */
  lag_seconds: number;
}

export async function jobQueueStats(db: Executor, now: Date): Promise<JobQueueRow[]> {
  const result = await sql<{
    name: string;
    state: JobQueueRow['state'];
    count: number | string;
    lag_seconds: number | string | null;
  }>`
    SELECT name, state, count(*)::int AS count,
           COALESCE(EXTRACT(EPOCH FROM (${now}::timestamptz - min(run_at))), 0)::float8 AS lag_seconds
    FROM (
      SELECT name, run_at,
             CASE WHEN status = 'running' THEN 'running' WHEN run_at <= ${now}::timestamptz THEN 'due' ELSE 'scheduled' END AS state
      FROM jobs WHERE status IN ('queued', 'running')
    ) AS unfinished
    GROUP BY name, state`.execute(db);
  return result.rows.map((row) => ({
    name: row.name,
    state: row.state,
    count: Number(row.count),
    lag_seconds: row.state === 'due' ? Math.max(0, Number(row.lag_seconds ?? 0)) : 0,
  }));
}

export interface WebhookBacklog {
  pending: number;
  /** Seconds since the oldest pending delivery was created; 0 when none is pending. */
  oldest_pending_seconds: number;
}

export async function webhookBacklog(db: Executor, now: Date): Promise<WebhookBacklog> {
  const result = await sql<{ pending: number | string; oldest: Date | string | null }>`
    SELECT count(*)::int AS pending, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`.execute(
    db,
  );
  const row = result.rows[0];
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
  return {
    pending: Number(row?.pending ?? 0),
    oldest_pending_seconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
  };
}
