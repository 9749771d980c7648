import { purgeExpiredReportExecutions } from '../modules/reports/report-retention.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Deletes report executions and their files past REPORTS_RETENTION_DAYS. */
export const purgeReportExecutions = defineJob({
  name: 'purge-report-executions',
  payload: JOB_PAYLOADS['purge-report-executions'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const purged = await purgeExpiredReportExecutions(job.deps, new Date());
    if (purged > 0) job.log.info({ purged }, 'purged report executions');
  },
});
