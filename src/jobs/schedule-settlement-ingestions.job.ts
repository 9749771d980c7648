import { scheduleDailyIngestions } from '../modules/settlements-ingestion/settlement-ingestion.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Enqueues the day's settlement ingestion of every payment service whose provider reports settlements (once a day each). */
export const scheduleSettlementIngestions = defineJob({
  name: 'schedule-settlement-ingestions',
  payload: JOB_PAYLOADS['schedule-settlement-ingestions'],
  maxAttempts: 3,
  async handle(_payload, job) {
    const added = await scheduleDailyIngestions(job.deps, new Date());
    if (added > 0) job.log.info({ added }, 'scheduled settlement ingestions');
  },
});
