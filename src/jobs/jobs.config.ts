import { defineGroup, flagSetting, integerSetting } from '../lib/settings.ts';

/** The background job worker. */

export const jobSettings = defineGroup('Jobs', {
  runWorker: flagSetting('RUN_WORKER', true, 'Run the background job worker in the server process'),
  jobPollMs: integerSetting('JOB_POLL_MS', {
    default: 1000,
    min: 10,
    max: 60_000,
    description: 'How often an idle worker looks for due jobs, in milliseconds (10 to 60000)',
  }),
  jobConcurrency: integerSetting('JOB_CONCURRENCY', {
    default: 4,
    min: 1,
    max: 64,
    description:
      "Jobs one worker runs at once (1 to 64). Each holds a database connection while its statements run, so keep it well below `DATABASE_POOL_SIZE`: at or above it, the API's requests wait for connections behind the jobs. Each capture's settlement is a job (`SETTLEMENT_DELAY_SECONDS` after it), run up to 100 at once as one of these (decision 0151): on a shared 2-CPU host one server drained a backlog of settlements at 560 to 1,000/s on PGlite and 1,600 to 2,100/s on PostgreSQL with 4 (`npm run bench:settlements`). Webhook deliveries and anti-fraud updates run in slots of their own (`JOB_NETWORK_CONCURRENCY`). Raise it when jobs fall behind (`svc_job_queue_depth` and `svc_job_queue_lag_seconds` in `GET /metrics`)",
  }),
  jobNetworkConcurrency: integerSetting('JOB_NETWORK_CONCURRENCY', {
    default: 16,
    min: 1,
    max: 1024,
    description:
      "Jobs that wait on an outside HTTP call (webhook deliveries, anti-fraud updates) one worker runs at once, apart from `JOB_CONCURRENCY` (1 to 1024; decision 0153). They hold no database connection while they wait, so slow receivers neither hold up the settlements nor wait behind them; a worker keeps up with at most this many divided by the receivers' response time in seconds (16 and 20-ms receivers: 800 deliveries/s), and in practice with what the CPU and the pool leave after the requests. Higher sends sooner and takes more from the API's requests: at 64 a 2-CPU host answered 172 to 189 captures/s under a delivery backlog, at 16 311/s (decision 0153)",
  }),
});
