import { ingestSettlements } from '../modules/settlements-ingestion/settlement-ingestion.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Reads a payment service's settlement reports from its provider and writes their lines once
 * (settlements, refund settlements, chargebacks). Retried with the default backoff: the cursor
 * stored after each page makes a retry (or a restart) resume after the last page written.
 */
export const ingestSettlementsJob = defineJob({
  name: 'ingest-settlements',
  payload: JOB_PAYLOADS['ingest-settlements'],
  maxAttempts: 8,
  async handle(payload, job) {
    await ingestSettlements(job.deps, { merchantAccountId: payload.merchant_account_id, paymentServiceId: payload.payment_service_id, since: payload.since ? new Date(payload.since) : null, report: payload.report ?? null }, job.log);
  },
});
