import { purgeExpiredWindows } from '../modules/rate-limits/rate-limits.repo.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';

/** Deletes rate limit counters of windows that have ended. */
export const purgeRateLimitWindows = defineJob({
  name: 'purge-rate-limit-windows',
  payload: JOB_PAYLOADS['purge-rate-limit-windows'],
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    await inBatchesUntilDone(() => purgeExpiredWindows(deps.db, new Date()));
  },
});
