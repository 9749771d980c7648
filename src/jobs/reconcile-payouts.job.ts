import { reconcileDuePayouts } from '../modules/payouts/reconcile-payouts.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Asks the payment services about payouts without a final answer (timeouts, crashes, `pending`
 * answers) and settles them: after 5 minutes, 1 hour, then daily.
 */
export const reconcilePayouts = defineJob({
  name: 'reconcile-payouts',
  payload: JOB_PAYLOADS['reconcile-payouts'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const settled = await reconcileDuePayouts(job.deps, new Date(), job.log, job.jobId);
    if (settled > 0) job.log.info({ settled }, 'reconciled payouts');
  },
});
