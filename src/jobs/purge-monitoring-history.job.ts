import { purgeHistory } from '../modules/monitoring/monitoring.repo.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Monitoring retention: samples after 30 days, closed incidents after 365 days. */
export const purgeMonitoringHistory = defineJob({
  name: 'purge-monitoring-history',
  payload: JOB_PAYLOADS['purge-monitoring-history'],
  maxAttempts: 3,
  async handle(_payload, { deps }) {
    await purgeHistory(deps.db, new Date());
  },
});
