import { settleRefund, settleTransaction } from '../modules/transactions/settlements/settlements.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Sandbox settlement report of one capture of a transaction (`capture_id`: its attempt; without
 * it, the captured amount not settled yet), or of one refund of it (a refund settlement),
 * SETTLEMENT_DELAY_SECONDS after the capture or the refund.
 */
export const settleTransactionJob = defineJob({
  name: 'settle-transaction',
  payload: JOB_PAYLOADS['settle-transaction'],
  maxAttempts: 10,
  async handle(payload, job) {
    if (payload.refund_id)
      await settleRefund(job.deps, payload.merchant_account_id, payload.transaction_id, payload.refund_id);
    else
      await settleTransaction(
        job.deps,
        payload.merchant_account_id,
        payload.transaction_id,
        payload.capture_id ?? null,
      );
  },
});
