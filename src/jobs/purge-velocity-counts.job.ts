import { purgeVelocityBuckets, purgeVelocityJournal } from '../modules/velocity/velocity.repo.ts';
import { MAX_VELOCITY_WINDOW_MINUTES, VELOCITY_BUCKET_MS } from '../modules/velocity/velocity-window.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Deletes velocity buckets older than the longest window, and a sole writer's journal rows of them (docs/risk.md, "Velocity limits"). */
export const purgeVelocityCounts = defineJob({
  name: 'purge-velocity-counts',
  payload: JOB_PAYLOADS['purge-velocity-counts'],
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    const before = new Date(Date.now() - (MAX_VELOCITY_WINDOW_MINUTES + 1) * VELOCITY_BUCKET_MS);
    await inBatchesUntilDone(() => purgeVelocityBuckets(deps.db, before));
    await inBatchesUntilDone(() => purgeVelocityJournal(deps.db, before));
  },
});
