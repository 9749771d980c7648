import { purgeExpiredSecurityCodes } from '../vault/security-codes.repo.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';

/** Destroys security codes whose time ran out unused (they are refused on read anyway). */
export const purgeSecurityCodes = defineJob({
  name: 'purge-security-codes',
  payload: JOB_PAYLOADS['purge-security-codes'],
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    await inBatchesUntilDone(() => purgeExpiredSecurityCodes(deps.db, new Date()));
  },
});
