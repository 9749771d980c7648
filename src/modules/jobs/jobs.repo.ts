import { sql } from 'kysely';
import type { JobRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export interface NewJob {
  id: string;
  name: string;
  payload: unknown;
  jobKey: string | null;
  runAt: Date;
  maxAttempts: number;
}

/** Inserts a job; with a job key that already exists, nothing is inserted and false is returned. */
/** The insert of a job; a job with a taken `job_key` is skipped (`returning id` tells). */
export function insertJobQuery(db: Executor, job: NewJob) {
  return db
    .insertInto('jobs')
    .values({
      id: job.id,
      name: job.name,
      payload: JSON.stringify(job.payload),
      job_key: job.jobKey,
      run_at: job.runAt,
      max_attempts: job.maxAttempts,
    })
    .onConflict((oc) => oc.column('job_key').doNothing())
    .returning('id');
}

export async function insertJob(db: Executor, job: NewJob): Promise<boolean> {
  return (await insertJobQuery(db, job).executeTakeFirst()) !== undefined;
}

/**
 * Takes up to `batch` due jobs for this worker. SKIP LOCKED lets several processes dequeue at
 * once without waiting on, or taking, each other's rows; a `running` job whose lease ran out (its
 * worker died) is due again.
 */
export async function claimDueJobs(db: Executor, workerId: string, batch: number, leaseMs: number, names: string[]): Promise<JobRow[]> {
  if (names.length === 0) return [];
  const now = new Date();
  const result = await sql<JobRow>`
    UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
           locked_until = ${new Date(now.getTime() + leaseMs)}, updated_at = ${now}
    WHERE id IN (
      SELECT id FROM jobs
      WHERE status IN ('queued', 'running') AND run_at <= ${now}
        AND (status = 'queued' OR (locked_until < ${now} AND attempts < max_attempts))
        AND name IN (${sql.join(names)})
      ORDER BY run_at
      LIMIT ${batch}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return result.rows;
}

/**
 * A job whose worker died on its last allowed attempt (lease over, no attempts left) would otherwise
 * stay `running` forever: it is failed, so a job that kills its worker every time ends.
 */
export async function failAbandonedJobs(db: Executor): Promise<number> {
  const result = await failAbandonedJobsQuery(db, new Date()).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * `failAbandonedJobs`' statement: it reads the running jobs only (`jobs_running_idx`), not the
 * table. The status is written in the text: a partial index serves a prepared statement's generic
 * plan only when its condition is there, not in a parameter.
 */
export function failAbandonedJobsQuery(db: Executor, now: Date) {
  return db
    .updateTable('jobs')
    .set({ status: 'failed', locked_by: null, locked_until: null, last_error: 'the worker stopped during the last attempt', updated_at: now })
    .where(sql<boolean>`status = 'running'`)
    .where('locked_until', '<', now)
    .whereRef('attempts', '>=', 'max_attempts');
}

export async function markSucceeded(db: Executor, id: string, workerId: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'succeeded', locked_by: null, locked_until: null, last_error: null, updated_at: new Date() })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .execute();
}

export async function markFailed(db: Executor, id: string, workerId: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: retryAt ? 'queued' : 'failed',
      run_at: retryAt ?? new Date(),
      locked_by: null,
      locked_until: null,
      last_error: error.slice(0, 2000),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .execute();
}

export async function findJob(db: Executor, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Deletes finished jobs older than `before`, in batches. */
export async function purgeFinishedJobs(db: Executor, before: Date, batch = 5_000): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('id', 'in', (eb) =>
      eb.selectFrom('jobs').select('id').where('status', 'in', ['succeeded', 'failed']).where('updated_at', '<', before).limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function nextDueAt(db: Executor): Promise<Date | null> {
  const row = await db.selectFrom('jobs').select('run_at').where('status', '=', 'queued').orderBy('run_at').limit(1).executeTakeFirst();
  return row?.run_at ?? null;
}
