import { runAccountUpdaterJob } from '../modules/account-updater/run-inquiries.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Runs the inquiries of one account updater job through the updater service and applies the
 * answers to the stored cards. Ids only: the job reads each card number from the vault itself.
 */
export const runAccountUpdater = defineJob({
  name: 'run-account-updater',
  payload: JOB_PAYLOADS['run-account-updater'],
  maxAttempts: 5,
  async handle(payload, job) {
    await runAccountUpdaterJob(job.deps, payload.merchant_account_id, payload.account_updater_job_id, job);
  },
});
