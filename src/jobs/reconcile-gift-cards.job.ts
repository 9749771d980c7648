import { reconcileGiftCards } from '../modules/transactions/reconcile/reconcile-gift-cards.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Settles gift card redemptions, reversals and refunds a crash left open (5 minutes after they
 * were recorded) with the gift card service's status query; see reconcile-gift-cards.service.ts.
 */
export const reconcileGiftCardsJob = defineJob({
  name: 'reconcile-gift-cards',
  payload: JOB_PAYLOADS['reconcile-gift-cards'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const settled = await reconcileGiftCards(job.deps, new Date(), job.log);
    if (settled > 0) job.log.info({ settled }, 'reconciled gift card records');
  },
});
