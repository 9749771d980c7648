import { evaluateDueMetrics } from '../modules/monitoring/evaluate.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Takes each monitoring metric's sample of the current minute (once across processes) and opens or closes incidents. */
export const evaluateMonitoringMetrics = defineJob({
  name: 'evaluate-monitoring-metrics',
  payload: JOB_PAYLOADS['evaluate-monitoring-metrics'],
  maxAttempts: 1,
  async handle(_payload, job) {
    const taken = await evaluateDueMetrics(job.deps, new Date(), job.log);
    if (taken > 0) job.log.info({ taken }, 'sampled monitoring metrics');
  },
});
