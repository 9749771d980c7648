import { Type } from 'typebox';
import { purgeExpiredSecurityCodes } from '../vault/security-codes.repo.ts';
import { defineJob } from './job.ts';
import { inBatchesUntilDone } from '../lib/batches.ts';

/** Destroys security codes whose time ran out unused (they are refused on read anyway). */
export const purgeSecurityCodes = defineJob({
  name: 'purge-security-codes',
  payload: Type.Object({}),
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    await inBatchesUntilDone(() => purgeExpiredSecurityCodes(deps.db, new Date()));
  },
});
