import { AppError } from '../errors/app-error.ts';
import { ingestSettlements } from '../modules/settlements-ingestion/settlement-ingestion.service.ts';
import { defineJob, PermanentJobError } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** 30 s, doubling, capped at an hour: eight attempts span about an hour of a provider's outage. */
export const ingestionBackoffMs = (attempt: number): number =>
  Math.round(Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempt - 1)) * (1 + Math.random() * 0.2));

/**
 * Reads a payment service's settlement reports from its provider and writes their lines once
 * (settlements, refund settlements, chargebacks). A provider that cannot be read now (`unavailable`,
 * `timeout`: a 502/504 of the ingestion) is retried with backoff: the cursor stored after each page
 * makes a retry (or a restart) resume after the last page written. A request no retry can fix (the
 * provider refused the report or its credentials, a malformed report, the payment service gone: a
 * 4xx of the ingestion) fails the job at once; the error is on the ingestion state as well.
 */
export const ingestSettlementsJob = defineJob({
  name: 'ingest-settlements',
  payload: JOB_PAYLOADS['ingest-settlements'],
  maxAttempts: 8,
  backoffMs: ingestionBackoffMs,
  async handle(payload, job) {
    try {
      await ingestSettlements(
        job.deps,
        {
          merchantAccountId: payload.merchant_account_id,
          paymentServiceId: payload.payment_service_id,
          since: payload.since ? new Date(payload.since) : null,
          report: payload.report ?? null,
        },
        job.log,
      );
    } catch (error) {
      if (error instanceof AppError && error.status < 500) throw new PermanentJobError(error.message, { cause: error });
      throw error;
    }
  },
});
