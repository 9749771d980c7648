import { Type } from 'typebox';
import { purgeExpiredWindows } from '../modules/rate-limits/rate-limits.repo.ts';
import { defineJob } from './job.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';

/** Deletes rate limit counters of windows that have ended. */
export const purgeRateLimitWindows = defineJob({
  name: 'purge-rate-limit-windows',
  payload: Type.Object({}),
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    await inBatchesUntilDone(() => purgeExpiredWindows(deps.db, new Date()));
  },
});
