import { Type } from 'typebox';
import { purgeExpiredSecurityCodes } from '../vault/security-codes.repo.ts';
import { defineJob } from './job.ts';

/** Destroys security codes whose time ran out unused (they are refused on read anyway). */
export const purgeSecurityCodes = defineJob({
  name: 'purge-security-codes',
  payload: Type.Object({}),
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    while ((await purgeExpiredSecurityCodes(deps.db, new Date())) > 0);
  },
});
