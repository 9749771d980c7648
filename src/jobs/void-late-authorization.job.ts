import { voidLateAuthorizationNow } from '../modules/transactions/void/late-void.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Voids at the provider an authorization that answered after its transaction was closed
 * (canceled meanwhile): one `void` attempt, its outcome recorded; a timeout is left to
 * reconcile-attempts. The transaction's status does not change.
 */
export const voidLateAuthorization = defineJob({
  name: 'void-late-authorization',
  payload: JOB_PAYLOADS['void-late-authorization'],
  maxAttempts: 10,
  async handle(payload, job) {
    await voidLateAuthorizationNow(
      job.deps,
      payload.merchant_account_id,
      payload.transaction_id,
      payload.attempt_id,
      job.log,
    );
  },
});
