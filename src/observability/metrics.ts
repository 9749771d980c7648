import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ObservedCall } from '../connectors/instrument.ts';
import type { Db, PoolStats } from '../db/client.ts';
import { groupRunnerOf } from '../db/write-batch.ts';
import { jobQueueStats, webhookBacklog } from './backlog.repo.ts';
import { addConnectorTime } from './request-timing.ts';

/**
 * The process's Prometheus metrics (docs/ops/metrics.md lists them). One registry per runtime, so
 * tests that build several apps in one process do not share series. Label values come from closed
 * sets only (operationIds, HTTP statuses, payment service definition ids, job names, outcome
 * enums): never an id or a string a merchant chose, so the number of series stays bounded.
 */

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_SECONDS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/** One webhook delivery attempt's outcome (see events/deliveries.service.ts). */
export type WebhookAttemptOutcome = 'succeeded' | 'retrying' | 'failed' | 'stopped';

export type JobOutcome = 'succeeded' | 'retrying' | 'failed';

export interface MetricsSources {
  db: Db;
  pool: () => PoolStats;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'operation' | 'status'>;
  private readonly httpDuration: Histogram<'operation' | 'status'>;
  private readonly authorizations: Counter<'payment_service_definition' | 'outcome'>;
  private readonly connectorDuration: Histogram<'payment_service_definition' | 'operation' | 'result'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly jobRuns: Counter<'job' | 'outcome'>;
  private readonly jobStartDelay: Histogram<'job'>;
  private readonly scrapeReads: Array<{ forget(): void }> = [];

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by operationId and status',
      labelNames: ['operation', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from receiving a request to its response, by operationId and status',
      labelNames: ['operation', 'status'],
      buckets: SECONDS,
      registers,
    });
    this.authorizations = new Counter({
      name: 'svc_authorizations_total',
      help: 'Authorization calls to payment services, by payment service definition and outcome (authorized, captured, declined, failed, ..., or the technical failure: timeout, unavailable, invalid_request, error)',
      labelNames: ['payment_service_definition', 'outcome'],
      registers,
    });
    this.connectorDuration = new Histogram({
      name: 'svc_connector_call_duration_seconds',
      help: 'Duration of calls to payment connectors, by payment service definition, operation and result',
      labelNames: ['payment_service_definition', 'operation', 'result'],
      buckets: SECONDS,
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'svc_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt is scheduled), failed (gave up), stopped (subscription deleted or inactive)',
      labelNames: ['outcome'],
      registers,
    });
    this.jobRuns = new Counter({
      name: 'svc_jobs_total',
      help: 'Jobs run by this process, by job and outcome',
      labelNames: ['job', 'outcome'],
      registers,
    });
    this.jobStartDelay = new Histogram({
      name: 'svc_job_start_delay_seconds',
      help: 'Time between a job becoming due and a worker starting it, by job',
      labelNames: ['job'],
      buckets: LAG_SECONDS,
      registers,
    });
    this.registerScrapeGauges();
    collectDefaultMetrics({ register: this.registry });
  }

  /** The Prometheus text exposition of every family. */
  async render(): Promise<{ contentType: string; body: string }> {
    for (const read of this.scrapeReads) read.forget();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  request(operation: string, status: number, seconds: number): void {
    const labels = { operation, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /**
   * One provider call (the connector registry's observer): its latency, the authorization outcome
   * for `authorize` (the answer's status, or the technical failure), and the current request's
   * connector time.
   */
  connectorCall(call: ObservedCall): void {
    const { definition, operation, result } = call;
    this.connectorDuration.observe({ payment_service_definition: definition, operation, result }, call.ms / 1000);
    if (operation === 'authorize')
      this.authorizations.inc({
        payment_service_definition: definition,
        outcome: result === 'ok' ? (call.status ?? 'unknown') : result,
      });
    addConnectorTime(call.ms);
  }

  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  jobRun(job: string, outcome: JobOutcome): void {
    this.jobRuns.inc({ job, outcome });
  }

  jobStarted(job: string, delaySeconds: number): void {
    this.jobStartDelay.observe({ job }, Math.max(0, delaySeconds));
  }

  /** Gauges read when Prometheus scrapes: the database pool, the job queue and the webhook backlog. */
  private registerScrapeGauges(): void {
    const registers = [this.registry];
    const { db, pool } = this.sources;
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'Database connections of this process by state (in_use, idle, max); PGlite has one session',
      labelNames: ['state'],
      registers,
      collect() {
        const stats = pool();
        this.set({ state: 'in_use' }, stats.total - stats.idle);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'max' }, stats.max);
      },
    });
    const grouped = () => groupRunnerOf(db)?.stats ?? { statements: 0, members: 0, fallbacks: 0 };
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    total(
      'svc_db_group_commit_statements_total',
      "Grouped statements that wrote several requests' identical writes at once (PostgreSQL)",
      () => grouped().statements,
    );
    total(
      'svc_db_group_commit_members_total',
      'Requests whose writes went in a grouped statement; divided by the statements, the mean group size',
      () => grouped().members,
    );
    total(
      'svc_db_group_commit_fallbacks_total',
      'Groups that failed (a guard, a constraint, a deadlock) and whose members then ran one by one',
      () => grouped().fallbacks,
    );
    new Gauge({
      name: 'svc_db_pool_waiting',
      help: 'Queries of this process waiting for a database connection',
      registers,
      collect() {
        this.set(pool().waiting);
      },
    });
    const jobs = sharedRead(() => jobQueueStats(db, new Date()));
    this.scrapeReads.push(jobs);
    new Gauge({
      name: 'svc_job_queue_depth',
      help: 'Unfinished jobs in the database (all processes) by job and state: due, scheduled (later), running',
      labelNames: ['job', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const row of await jobs.get()) this.set({ job: row.name, state: row.state }, row.count);
      },
    });
    new Gauge({
      name: 'svc_job_queue_lag_seconds',
      help: 'How long the oldest due job of each kind has been waiting for a worker (absent when none waits)',
      labelNames: ['job'],
      registers,
      async collect() {
        this.reset();
        for (const row of await jobs.get()) if (row.state === 'due') this.set({ job: row.name }, row.lag_seconds);
      },
    });
    const webhooks = sharedRead(() => webhookBacklog(db, new Date()));
    this.scrapeReads.push(webhooks);
    new Gauge({
      name: 'svc_webhook_deliveries_pending',
      help: 'Webhook deliveries not yet delivered nor given up (all processes)',
      registers,
      async collect() {
        this.set((await webhooks.get()).pending);
      },
    });
    new Gauge({
      name: 'svc_webhook_oldest_pending_seconds',
      help: 'Age of the oldest pending webhook delivery (0 when none is pending)',
      registers,
      async collect() {
        this.set((await webhooks.get()).oldest_pending_seconds);
      },
    });
  }
}

/**
 * One database read shared by the gauges of a scrape: prom-client collects every family at once,
 * so the first gauge's read is reused by the others. `forget()` starts the next scrape afresh.
 */
function sharedRead<T>(read: () => Promise<T>): { get: () => Promise<T>; forget: () => void } {
  let cached: Promise<T> | null = null;
  return {
    get: () => (cached ??= read()),
    forget: () => void (cached = null),
  };
}
