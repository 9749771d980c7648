import { settleDueLinks, systemAudit } from '../modules/payment-links/payment-link-lifecycle.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Expires the payment links past their expires_at (reads expire them too; this records it without
 * a read, with its payment-link.updated event), and settles links left `processing` by a payment
 * whose transaction has ended or was never recorded.
 */
export const expirePaymentLinksJob = defineJob({
  name: 'expire-payment-links',
  payload: JOB_PAYLOADS['expire-payment-links'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const changed = await settleDueLinks(job.deps, new Date(), systemAudit('expire-payment-links', job.jobId));
    if (changed > 0) job.log.info({ changed }, 'payment links expired or settled');
  },
});
