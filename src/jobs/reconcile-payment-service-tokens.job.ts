import { reconcileDueTokens } from '../modules/payment-service-tokens/reconcile-tokens.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Asks the payment services about payment service tokens left `processing` (a create that timed
 * out or crashed) and records the answer: after 5 minutes, 1 hour, then daily.
 */
export const reconcilePaymentServiceTokens = defineJob({
  name: 'reconcile-payment-service-tokens',
  payload: JOB_PAYLOADS['reconcile-payment-service-tokens'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const settled = await reconcileDueTokens(job.deps, new Date(), job.log);
    if (settled > 0) job.log.info({ settled }, 'reconciled payment service tokens');
  },
});
