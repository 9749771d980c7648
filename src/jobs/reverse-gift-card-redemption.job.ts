import { systemContext } from '../modules/transactions/gift-card-tender.ts';
import { sendReversal } from '../modules/gift-cards/gift-cards.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Gives back to the card what is left of one redemption whose reversal was recorded `pending` in
 * the write that asked for it (a cancel: void-transaction.service.ts), with the service's
 * idempotency key `reverse:<redemption id>`, and records the answer. A run after one that died
 * (attempt > 1) asks the service's status query first and sends the reversal only if it was never
 * received: the card is credited once.
 */
export const reverseGiftCardRedemptionJob = defineJob({
  name: 'reverse-gift-card-redemption',
  payload: JOB_PAYLOADS['reverse-gift-card-redemption'],
  maxAttempts: 10,
  async handle(payload, job) {
    const ctx = systemContext(job.deps, payload.merchant_account_id, 'reverseGiftCardRedemption', job.log);
    await sendReversal(ctx, payload.redemption_id, job.attempt > 1);
  },
});
