import { scheduleDueReports } from '../modules/reports/report-scheduler.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Makes the executions of scheduled reports that came due (midnight in their time zone). */
export const scheduleReports = defineJob({
  name: 'schedule-reports',
  payload: JOB_PAYLOADS['schedule-reports'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const made = await scheduleDueReports(job.deps, new Date(), { jobName: 'schedule-reports', jobId: job.jobId });
    if (made > 0) job.log.info({ made }, 'scheduled report executions');
  },
});
