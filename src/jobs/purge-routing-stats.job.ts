import { purgeBuckets } from '../modules/routing-stats/routing-stats.repo.ts';
import { BUCKET_MS, MAX_WINDOW_MINUTES } from '../modules/routing-stats/sliding-window.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Deletes success-rate buckets older than the longest window (docs/routing.md, "Success-rate routing"). */
export const purgeRoutingStats = defineJob({
  name: 'purge-routing-stats',
  payload: JOB_PAYLOADS['purge-routing-stats'],
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    const before = new Date(Date.now() - (MAX_WINDOW_MINUTES + 1) * BUCKET_MS);
    await inBatchesUntilDone(() => purgeBuckets(deps.db, before));
  },
});
