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
    default: 128,
    min: 1,
    max: 1024,
    description:
      "Jobs that wait on an outside HTTP call (webhook deliveries, anti-fraud updates) one worker runs at once, apart from `JOB_CONCURRENCY` (1 to 1024; decisions 0153 and 0156). They hold no database connection while they wait, so slow receivers neither hold up the settlements nor wait behind them; a worker keeps up with at most this many divided by the receivers' response time in seconds (128 and 20-ms receivers: 6,400 deliveries/s), and in practice with what the CPU and the pool leave after the requests. The deliveries running at once share their statements (a claim, a record), so more of them cost the API's requests little: with a 20-ms receiver and 1,000 captures/s offered to a shared 2-CPU host, 128 kept the deliveries' largest lag at 5.3 to 10.2 s on PostgreSQL and 0.5 s on PGlite where 16 left it at 16 to 24 s (decision 0156). Lower it if the captures' latency suffers",
  }),
});
