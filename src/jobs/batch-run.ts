import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { JobRow } from '../db/schema.ts';
import type { BatchRun, Job } from './job-types.ts';

/** The queue's batch jobs (`Job.batch`, decision 0151): how claimed rows are cut into units, and how a batch runs. */

/**
 * Pure: the claimed rows as units of work: each row of a plain job alone, the rows of a batch job
 * (`isBatch(name)`) together by name, in the order they came.
 */
export function batchesOf(rows: readonly JobRow[], isBatch: (name: string) => boolean) {
  const units: Array<{ batch: boolean; rows: JobRow[] }> = [];
  const byName = new Map<string, JobRow[]>();
  for (const row of rows) {
    if (!isBatch(row.name)) units.push({ batch: false, rows: [row] });
    else if (byName.has(row.name)) byName.get(row.name)!.push(row);
    else {
      byName.set(row.name, [row]);
      units.push({ batch: true, rows: byName.get(row.name)! });
    }
  }
  return units;
}

/**
 * Runs `rows` (jobs of `job`, a batch job) in one call of its batch handler and returns the
 * failures by job id: a payload that does not match the job's schema fails alone, and a handler
 * that throws fails every job it was handed.
 */
export async function runBatch<D>(
  job: Job<TSchema, D>,
  rows: readonly JobRow[],
  run: BatchRun<D>,
): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  const items = [];
  for (const row of rows) {
    if (Value.Check(job.payload, row.payload))
      items.push({ payload: row.payload as never, jobId: row.id, attempt: row.attempts });
    else failures.set(row.id, new Error('payload does not match the job schema'));
  }
  try {
    const failed = items.length > 0 ? await job.batch!.handle(items, run) : new Map<string, unknown>();
    for (const [id, error] of failed) failures.set(id, error);
  } catch (error) {
    for (const item of items) failures.set(item.jobId, error);
  }
  return failures;
}
