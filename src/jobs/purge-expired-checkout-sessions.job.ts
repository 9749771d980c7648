import {
  deleteExpiredCheckoutSessions,
  purgeExpiredCheckoutSessionCards,
} from '../modules/checkout-sessions/checkout-sessions.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Purges the card data (encrypted number, stored method reference, security code) of expired
 * checkout sessions, then deletes the sessions that expired more than a day ago. One side effect in
 * two steps: both remove what an expired session left behind.
 */
export const purgeExpiredCheckoutSessions = defineJob({
  name: 'purge-expired-checkout-sessions',
  payload: JOB_PAYLOADS['purge-expired-checkout-sessions'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const now = new Date();
    const cleared = await purgeExpiredCheckoutSessionCards(deps, now);
    const deleted = await deleteExpiredCheckoutSessions(deps, now);
    if (cleared > 0 || deleted > 0) log.info({ cleared, deleted }, 'purged expired checkout sessions');
  },
});
