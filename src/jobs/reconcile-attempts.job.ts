import { reconcileDueAttempts } from '../modules/transactions/reconcile/reconcile.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Asks the payment services about connector calls without a final answer (timeouts, crashes,
 * pending captures, voids and refunds) and settles them: after 5 minutes, 1 hour, then daily.
 */
export const reconcileAttempts = defineJob({
  name: 'reconcile-attempts',
  payload: JOB_PAYLOADS['reconcile-attempts'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const settled = await reconcileDueAttempts(job.deps, new Date());
    if (settled > 0) job.log.info({ settled }, 'reconciled connector attempts');
  },
});
