import { purgeFinishedJobs as purge } from '../modules/jobs/jobs.repo.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';

/** Finished jobs are kept seven days for inspection, then deleted. */
const KEEP_MS = 7 * 24 * 3600 * 1000;

export const purgeFinishedJobs = defineJob({
  name: 'purge-finished-jobs',
  payload: JOB_PAYLOADS['purge-finished-jobs'],
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    const before = new Date(Date.now() - KEEP_MS);
    await inBatchesUntilDone(() => purge(deps.db, before));
  },
});
