import { Type } from 'typebox';
import { purgeExpiredCheckoutSessionCards } from '../modules/checkout-sessions/checkout-sessions.service.ts';
import { defineJob } from './job.ts';

/** Purges the card data (encrypted number, stored method reference, security code) of expired checkout sessions. */
export const purgeExpiredCheckoutSessions = defineJob({
  name: 'purge-expired-checkout-sessions',
  payload: Type.Object({}),
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const cleared = await purgeExpiredCheckoutSessionCards(deps, new Date());
    if (cleared > 0) log.info({ cleared }, 'purged card data of expired checkout sessions');
  },
});
