import { sql } from 'kysely';
import { arrayLiteral } from '../../db/group-commit-sql.ts';
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

export interface PollJobs {
  workerId: string;
  /** Jobs this worker ran to success since its last poll: recorded `succeeded` by this statement. */
  finished: string[];
  /** How many due jobs to take (0: only record `finished` and fail abandoned jobs). */
  batch: number;
  leaseMs: number;
  names: string[];
  /**
   * A second claim in the same statement, with its own names and limit: a worker's network-bound
   * jobs (`Job.network`, decision 0153), taken up to its free network slots while `names` and
   * `batch` take the others up to its free common slots, so neither kind crowds out the other.
   */
  also?: { names: string[]; batch: number };
}

/**
 * One poll of a worker, in one statement (one round trip and one commit, where there were three):
 *  - records the jobs it finished since its last poll (`finished`, still locked by it) `succeeded`;
 *  - fails the jobs whose worker died on their last allowed attempt (`failAbandonedJobsQuery`);
 *  - takes up to `batch` due jobs of `names` (and up to `also.batch` of `also.names`). SKIP LOCKED lets several processes dequeue at once without
 *    waiting on, or taking, each other's rows; a `running` job whose lease ran out (its worker
 *    died) is due again. A job just finished is never taken again by the same statement, even when
 *    it ran past its lease.
 * The three parts touch disjoint rows: the abandoned ones have no attempt left, the due ones do, and
 * the finished ones are left out of both. The claimed ids come as one array (`= ANY(ARRAY(…))`), so
 * the update finds them by key: with `IN (…)` a generic plan, which cannot know the LIMIT, read the
 * whole table (finished jobs included) to join it with them.
 */
export async function pollJobs(db: Executor, poll: PollJobs): Promise<JobRow[]> {
  return (await pollJobsQuery(db, poll, new Date()).execute(db)).rows;
}

/** `pollJobs`' statement (its plan is tested: src/modules/jobs/jobs.plan.test.ts). */
export function pollJobsQuery(db: Executor, { workerId, finished, batch, leaseMs, names, also }: PollJobs, now: Date) {
  const done = uuidArray(finished);
  const abandoned = failAbandonedJobsQuery(db, now).where(sql<boolean>`id <> ALL(${done}::uuid[])`);
  const due = (of: string[], limit: number) => sql`SELECT id FROM jobs
      WHERE status IN ('queued', 'running') AND run_at <= ${now}
        AND (status = 'queued' OR (locked_until < ${now} AND attempts < max_attempts))
        AND ${of.length === 0 ? sql`false` : sql`name IN (${sql.join(of)})`} AND id <> ALL(${done}::uuid[])
      ORDER BY run_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`;
  const claimed = also
    ? sql`ARRAY(${due(names, batch)}) || ARRAY(${due(also.names, also.batch)})`
    : sql`ARRAY(${due(names, batch)})`;
  return sql<JobRow>`
    WITH finished AS (
      UPDATE jobs SET status = 'succeeded', locked_by = NULL, locked_until = NULL, last_error = NULL, updated_at = ${now}
      WHERE id = ANY(${done}::uuid[]) AND locked_by = ${workerId}
    ), abandoned AS (${abandoned})
    UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
           locked_until = ${new Date(now.getTime() + leaseMs)}, updated_at = ${now}
    WHERE id = ANY(${claimed})
    RETURNING *`;
}

/**
 * Fails the jobs whose worker died on their last allowed attempt (lease over, no attempts left):
 * they would otherwise stay `running` forever, and a job that kills its worker every time would
 * never end. Part of every poll (`pollJobsQuery`). It reads the running jobs only
 * (`jobs_running_idx`), not the table. The status is written in the text: a partial index serves a
 * prepared statement's generic plan only when its condition is there, not in a parameter.
 */
export function failAbandonedJobsQuery(db: Executor, now: Date) {
  return db
    .updateTable('jobs')
    .set({
      status: 'failed',
      locked_by: null,
      locked_until: null,
      last_error: 'the worker stopped during the last attempt',
      updated_at: now,
    })
    .where(sql<boolean>`status = 'running'`)
    .where('locked_until', '<', now)
    .whereRef('attempts', '>=', 'max_attempts');
}

/** Records jobs this worker ran to success `succeeded` (those a poll has not recorded: at a stop). */
export async function markSucceeded(db: Executor, ids: string[], workerId: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('jobs')
    .set({ status: 'succeeded', locked_by: null, locked_until: null, last_error: null, updated_at: new Date() })
    .where(sql<boolean>`id = ANY(${uuidArray(ids)}::uuid[])`)
    .where('locked_by', '=', workerId)
    .execute();
}

/**
 * Job ids as one PostgreSQL array literal (`arrayLiteral`, as the group committer writes its
 * arrays), sent as text and cast by the statement: the same on both drivers, whatever each does
 * with a JavaScript array.
 */
function uuidArray(ids: string[]): string {
  return arrayLiteral(ids, 'uuid')!;
}

export async function markFailed(
  db: Executor,
  id: string,
  workerId: string,
  error: string,
  retryAt: Date | null,
): Promise<void> {
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
      eb
        .selectFrom('jobs')
        .select('id')
        .where('status', 'in', ['succeeded', 'failed'])
        .where('updated_at', '<', before)
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function nextDueAt(db: Executor): Promise<Date | null> {
  const row = await db
    .selectFrom('jobs')
    .select('run_at')
    .where('status', '=', 'queued')
    .orderBy('run_at')
    .limit(1)
    .executeTakeFirst();
  return row?.run_at ?? null;
}
