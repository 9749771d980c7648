import type { TSchema } from 'typebox';
import type { Deps } from '../context.ts';
import type { Job, JobRun } from './job-types.ts';

export { defaultBackoffMs, PermanentJobError } from './job-types.ts';

/** What a job of this server is handed: the process's dependencies, the job's id and attempt, a log. */
export type JobContext = JobRun<Deps>;

/** A background job of this server (the contract: job-types.ts `Job`). */
export type JobDefinition<P extends TSchema = TSchema> = Job<P, Deps>;

export function defineJob<P extends TSchema>(job: JobDefinition<P>): JobDefinition<P> {
  return job;
}
