import { refundLateCaptureNow } from '../modules/transactions/refund/late-refund.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Refunds in full at the provider a sale paid after its transaction closed unpaid (a PIX paid, an
 * iDEAL approved, after the approval deadline): one `refund` attempt, its outcome recorded; an
 * interrupted one is never sent again, reconciliation asks. The transaction's status does not change.
 */
export const refundLateCapture = defineJob({
  name: 'refund-late-capture',
  payload: JOB_PAYLOADS['refund-late-capture'],
  maxAttempts: 10,
  async handle(payload, job) {
    await refundLateCaptureNow(
      job.deps,
      payload.merchant_account_id,
      payload.transaction_id,
      payload.attempt_id,
      job.log,
    );
  },
});
