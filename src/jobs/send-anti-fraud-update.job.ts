import { sendAntiFraudUpdate } from '../modules/transactions/anti-fraud-updates/send-anti-fraud-update.service.ts';
import { defineJob, PermanentJobError } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

const MAX_ATTEMPTS = 8;

/**
 * One report to the anti-fraud service that decided on a transaction (decision 0143): the
 * authorization's outcome, a void, a refund or a chargeback, enqueued with the change it reports.
 * A service that did not answer, timed out or answered 408, 429 or 5xx is asked again with the
 * queue's backoff (2, 4, 8 … 128 s: eight tries over about four minutes); a refusal (another 4xx,
 * a deleted service) fails the job at once. Every try leaves a trace entry on the transaction.
 */
export const sendAntiFraudUpdateJob = defineJob({
  name: 'send-anti-fraud-update',
  payload: JOB_PAYLOADS['send-anti-fraud-update'],
  maxAttempts: MAX_ATTEMPTS,
  // Waits on the receiver with no connection held: slots of its own (decision 0153).
  network: true,
  async handle(payload, job) {
    const run = await sendAntiFraudUpdate(job.deps, payload, {
      attempt: job.attempt,
      last: job.attempt >= MAX_ATTEMPTS,
      log: job.log,
    });
    if (run.result === 'refused') throw new PermanentJobError(run.message);
    if (run.result === 'failed') throw new Error(run.message);
  },
});
