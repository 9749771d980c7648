import { inBatchesUntilDone } from '../lib/batches.ts';
import { rekeyRequestHashes } from '../modules/idempotency-keys/request-hashes.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Rewrites the request hashes of idempotency keys stored before migration 0038 (unkeyed SHA-256,
 * which a brute force over a card's unknown digits could match) as keyed MACs. Finds them through
 * that migration's partial index, which is empty once they are done: a run then costs one probe.
 */
export const rekeyIdempotencyKeys = defineJob({
  name: 'rekey-idempotency-keys',
  payload: JOB_PAYLOADS['rekey-idempotency-keys'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const rekeyed = await inBatchesUntilDone(() => rekeyRequestHashes(deps));
    if (rekeyed > 0) log.info({ rekeyed }, 'keyed the request hashes of idempotency keys stored before migration 0038');
  },
});
