import { purgeExpiredKeys } from '../modules/idempotency-keys/idempotency-keys.repo.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';

/** Deletes idempotency keys past their 24-hour (IDEMPOTENCY_TTL_SECONDS) replay window. */
export const purgeIdempotencyKeys = defineJob({
  name: 'purge-idempotency-keys',
  payload: JOB_PAYLOADS['purge-idempotency-keys'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const total = await inBatchesUntilDone(() => purgeExpiredKeys(deps.db, new Date()));
    if (total > 0) log.info({ deleted: total }, 'purged expired idempotency keys');
  },
});
