import { settleMany, settleOne } from '../modules/transactions/settlements/settle-captures.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Sandbox settlement report of one capture of a transaction (`capture_id`: its attempt; without
 * it, the captured amount not settled yet), or of one refund of it (a refund settlement),
 * SETTLEMENT_DELAY_SECONDS after the capture or the refund. Claimed and run up to
 * `SETTLEMENT_BATCH` at once (decision 0151): the capture settlements of a batch are written in
 * one database transaction, and a batch that fails runs one by one, so a failing settlement is
 * retried on its own.
 */
export const SETTLEMENT_BATCH = 100;

export const settleTransactionJob = defineJob({
  name: 'settle-transaction',
  payload: JOB_PAYLOADS['settle-transaction'],
  maxAttempts: 10,
  async handle(payload, job) {
    await settleOne(job.deps, payload);
  },
  batch: {
    size: SETTLEMENT_BATCH,
    handle: (runs, job) =>
      settleMany(
        job.deps,
        runs.map((run) => ({ jobId: run.jobId, order: run.payload })),
        job.log,
      ),
  },
});
