import { Type } from 'typebox';
import { expireThreeDsChallenges } from '../modules/transactions/three-ds-challenge.service.ts';
import { defineJob } from './job.ts';

/**
 * Ends the sandbox 3DS challenges nobody finished within BUYER_APPROVAL_TIMEOUT_SECONDS: the
 * transaction fails (`buyer_approval_timeout`) and the card data the challenge held is destroyed.
 */
export const expireThreeDsChallengesJob = defineJob({
  name: 'expire-three-ds-challenges',
  payload: Type.Object({}),
  maxAttempts: 3,
  async handle(_payload, job) {
    const expired = await expireThreeDsChallenges(job.deps, new Date(), job.log);
    if (expired > 0) job.log.info({ expired }, 'expired 3DS challenges');
  },
});
