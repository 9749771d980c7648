import { expireThreeDsChallenges } from '../modules/transactions/three-ds/three-ds-challenge.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Ends the sandbox 3DS challenges nobody finished within BUYER_APPROVAL_TIMEOUT_SECONDS: the
 * transaction fails (`buyer_approval_timeout`) and the card data the challenge held is destroyed.
 */
export const expireThreeDsChallengesJob = defineJob({
  name: 'expire-three-ds-challenges',
  payload: JOB_PAYLOADS['expire-three-ds-challenges'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const expired = await expireThreeDsChallenges(job.deps, new Date(), job.log);
    if (expired > 0) job.log.info({ expired }, 'expired 3DS challenges');
  },
});
