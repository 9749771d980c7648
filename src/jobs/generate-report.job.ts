import { runReportExecution } from '../modules/reports/report-runner.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

const MAX_ATTEMPTS = 3;

/** Writes one report execution's CSV file (docs/reports.md); retried twice before the execution is `failed`. */
export const generateReport = defineJob({
  name: 'generate-report',
  payload: JOB_PAYLOADS['generate-report'],
  maxAttempts: MAX_ATTEMPTS,
  async handle(payload, job) {
    await runReportExecution(job.deps, payload.merchant_account_id, payload.report_execution_id, {
      jobName: 'generate-report',
      jobId: job.jobId,
      willRetry: job.attempt < MAX_ATTEMPTS,
      log: job.log,
    });
  },
});
