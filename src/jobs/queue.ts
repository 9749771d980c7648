import { hostname } from 'node:os';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { JobRow } from '../db/schema.ts';
import type { Db, Executor } from '../db/executor.ts';
import { nextTurn } from '../db/session-lanes.ts';
import { uuidv7 } from '../lib/ids.ts';
import { scrubString } from '../lib/redact.ts';
import * as repo from '../modules/jobs/jobs.repo.ts';
import { batchesOf, runBatch } from './batch-run.ts';
import { defaultBackoffMs, PermanentJobError, type Job } from './job-types.ts';
import type { JOB_PAYLOADS } from './payloads.ts';

/**
 * How long the poll after a network-bound job's end waits for others to end, while some still run:
 * a few milliseconds, well below a receiver's answer (tens of milliseconds), so a slot seldom
 * stays free longer than that.
 */
const NETWORK_POLL_GATHER_MS = 5;

export interface EnqueueOptions {
  /** Deduplicates: a second job with the same key is not added while the first exists. */
  jobKey?: string;
  runAt?: Date;
}

export interface RecurringJob {
  /** Any of the queue's jobs (whatever it is handed): the queue enqueues it by name. */
  job: Job<TSchema, never>;
  everyMs: number;
}

export interface QueueOptions {
  pollMs: number;
  /** Jobs run at once by one worker (those of `Job.network` aside). */
  concurrency?: number;
  /** Network-bound jobs (`Job.network`) run at once by one worker, in slots of their own (decision 0153). */
  networkConcurrency?: number;
  /** How long a claimed job is protected; after it another worker may take the job again. */
  leaseMs?: number;
  recurring?: RecurringJob[];
  /** Told when a job starts (how late) and how it ended: the metrics. */
  observer?: JobObserver;
}

export interface JobObserver {
  jobStarted(job: string, delaySeconds: number): void;
  jobRun(job: string, outcome: 'succeeded' | 'retrying' | 'failed'): void;
}

/** Job name → payload schema: what a queue's callers may enqueue (`JOB_PAYLOADS`; a test queue has its own). */
export type PayloadSchemas = Record<string, TSchema>;

type Logger = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

/** What the queue needs of what its jobs are handed: the database it keeps them in. */
export interface QueueDeps {
  db: Db;
}

/**
 * The PostgreSQL-backed job queue. Jobs are rows written in the caller's transaction (so no job
 * exists for a rolled-back write), claimed with SKIP LOCKED by any number of workers, retried with
 * backoff, and kept after they finish for inspection until purged. `D`: what its jobs are handed
 * (context.ts `Deps` for the server's queue).
 */
export class JobQueue<Payloads extends PayloadSchemas = typeof JOB_PAYLOADS, D extends QueueDeps = QueueDeps> {
  readonly workerId = `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`;
  private readonly jobs = new Map<string, Job<TSchema, D>>();
  /** The registered jobs' names by the slots they run in: network-bound (`Job.network`) and the others. */
  private readonly pools = { common: [] as string[], network: [] as string[] };
  private deps: D | null = null;
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** A poke came while no loop was waiting (see `poke`). */
  private poked = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Of `inFlight`, the network-bound jobs (`Job.network`): they have slots of their own. */
  private networkInFlight = 0;
  /** Jobs run to success, not yet recorded `succeeded`: the next poll records them (`repo.pollJobs`). */
  private finished: string[] = [];
  private lastScheduled = new Map<string, number>();
  /** A poll waiting for more network-bound jobs to end (`pokeAfterNetworkJob`). */
  private gatherTimer: NodeJS.Timeout | null = null;
  /** Jobs this worker started, a batch's included (`drain` tells how many ran). */
  private started = 0;

  constructor(
    private readonly options: QueueOptions,
    jobs: Array<Job<TSchema, D>>,
    private readonly log: Logger,
  ) {
    for (const job of jobs) {
      if (this.jobs.has(job.name)) throw new Error(`job ${job.name} is defined twice`);
      this.jobs.set(job.name, job);
      (job.network && !job.batch ? this.pools.network : this.pools.common).push(job.name);
    }
  }

  /**
   * Adds the job named `name` in `db` (pass the transaction of the business write). Returns false
   * for a duplicate key. The payload is checked against the job's schema here and again when it runs.
   */
  async enqueue<N extends keyof Payloads & string>(
    db: Executor,
    name: N,
    payload: Static<Payloads[N]>,
    options: EnqueueOptions = {},
  ): Promise<boolean> {
    return this.add(db, name, payload, options);
  }

  /**
   * The insert that adds a job, for a caller that runs it with other writes (src/db/write-batch.ts);
   * call `pokeSoon()` after running it.
   */
  enqueueQuery<N extends keyof Payloads & string>(
    db: Executor,
    name: N,
    payload: Static<Payloads[N]>,
    options: EnqueueOptions = {},
  ) {
    return this.insertQuery(db, name, payload, options);
  }

  private async add(db: Executor, name: string, payload: unknown, options: EnqueueOptions): Promise<boolean> {
    const added = (await this.insertQuery(db, name, payload, options).executeTakeFirst()) !== undefined;
    if (added) this.pokeSoon();
    return added;
  }

  /** Looks the job up among the registered ones: its schema checks the payload at run time, whatever the caller's types said. */
  private insertQuery(db: Executor, name: string, payload: unknown, options: EnqueueOptions) {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`job ${name} is not registered`);
    if (!Value.Check(job.payload, payload)) throw new Error(`payload of job ${name} does not match its schema`);
    return repo.insertJobQuery(db, {
      id: uuidv7(),
      name,
      payload,
      jobKey: options.jobKey ?? null,
      runAt: options.runAt ?? new Date(),
      maxAttempts: job.maxAttempts,
    });
  }

  /** Jobs this worker runs at once (JOB_CONCURRENCY), the network-bound ones aside. */
  get concurrency(): number {
    return this.options.concurrency ?? 4;
  }

  /** Network-bound jobs this worker runs at once (JOB_NETWORK_CONCURRENCY). */
  get networkConcurrency(): number {
    return this.options.networkConcurrency ?? 128;
  }

  /** Free slots: common ones (database-bound jobs, batches) and network ones (`Job.network`). */
  private freeSlots(): { common: number; network: number } {
    return {
      common: this.concurrency - (this.inFlight.size - this.networkInFlight),
      network: this.networkConcurrency - this.networkInFlight,
    };
  }

  /** A job was added: it is visible once the caller commits, so look again shortly instead of waiting a full poll. */
  pokeSoon(): void {
    if (this.running) setTimeout(() => this.poke(), 25).unref();
  }

  start(deps: D): void {
    if (this.running) return;
    this.deps = deps;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming jobs and waits for the running ones to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.recordFinished();
  }

  /** Records the jobs finished since the last poll, outside a poll (a stop, the end of a drain). */
  private async recordFinished(): Promise<void> {
    if (this.finished.length === 0) return;
    const ids = this.finished.splice(0);
    try {
      await repo.markSucceeded(this.deps!.db, ids, this.workerId);
    } catch (error) {
      // Their lease runs out and they run again (handlers are idempotent), as after a crash.
      this.log.error({ err: error, jobIds: ids }, 'could not record finished jobs');
    }
  }

  /**
   * A network-bound job ended. While others still run, the poll that records it and takes the next
   * waits up to NETWORK_POLL_GATHER_MS for more of them to end (decision 0156): under a delivery
   * backlog they end one by one, and a poll for each was the most frequent statement of a delivery.
   */
  private pokeAfterNetworkJob(): void {
    if (this.networkInFlight === 0) {
      this.poke();
      return;
    }
    if (this.gatherTimer) return;
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = null;
      this.poke();
    }, NETWORK_POLL_GATHER_MS);
    this.gatherTimer.unref();
  }

  poke(): void {
    if (this.wake) this.wake();
    // No loop is waiting (it is polling): it looks once more instead of sleeping, since that poll
    // may have run before the job being poked about was committed.
    else this.poked = true;
  }

  /** Runs due jobs until none is left (tests; a CLI one-off). Returns how many ran. */
  async drain(deps: D, maxRounds = 100): Promise<number> {
    this.deps = deps;
    const before = this.started;
    for (let round = 0; round < maxRounds; round++) {
      const ran = await this.tick();
      await Promise.allSettled([...this.inFlight]);
      if (ran === 0) break;
    }
    await this.recordFinished();
    return this.started - before;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      // A turn of the event loop before each poll: a worker with a backlog would otherwise go from
      // job to job on PGlite's promise callbacks alone, and no request would be read until it was gone.
      await nextTurn();
      if (!this.running) break;
      try {
        await this.scheduleRecurring();
        claimed = await this.tick();
      } catch (error) {
        this.log.error({ err: error }, 'job queue poll failed');
      }
      const free = this.freeSlots();
      if (claimed > 0 && (free.common > 0 || free.network > 0)) continue;
      // stop() during the poll above found no waiting loop to wake: do not sleep a full poll.
      if (!this.running) break;
      if (this.poked) {
        this.poked = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.options.pollMs);
        this.timer.unref();
      });
      if (this.timer) clearTimeout(this.timer);
      this.wake = null;
    }
  }

  private async tick(): Promise<number> {
    const deps = this.deps!;
    const free = this.freeSlots();
    if (free.common <= 0 && free.network <= 0 && this.finished.length === 0) {
      await Promise.race([...this.inFlight]);
      return 0;
    }
    const finished = this.finished.splice(0);
    const { common, network } = this.pools;
    let rows: JobRow[];
    try {
      // Each kind up to its own free slots, in one statement: neither crowds out the other.
      rows = await repo.pollJobs(deps.db, {
        workerId: this.workerId,
        finished,
        batch: Math.max(0, free.common),
        leaseMs: this.options.leaseMs ?? 300_000,
        names: common,
        ...(network.length > 0 ? { also: { names: network, batch: Math.max(0, free.network) } } : {}),
      });
    } catch (error) {
      // Nothing of the poll was written: the next one records them.
      this.finished.unshift(...finished);
      throw error;
    }
    for (const unit of batchesOf(rows, (name) => this.jobs.get(name)?.batch !== undefined)) {
      const onNetwork = !unit.batch && this.jobs.get(unit.rows[0]!.name)?.network === true;
      if (onNetwork) this.networkInFlight++;
      const promise = (unit.batch ? this.executeBatch(unit.rows) : this.execute(unit.rows[0]!)).finally(() => {
        this.inFlight.delete(promise);
        if (onNetwork) {
          this.networkInFlight--;
          this.pokeAfterNetworkJob();
        } else this.poke();
      });
      this.inFlight.add(promise);
    }
    return rows.length;
  }

  /**
   * Jobs of a batch job (`Job.batch`): those the poll took, and as many more due ones of the same
   * name as the batch holds, claimed in one statement (the poll's, for that name only), run in one
   * call of the job's batch handler (decision 0151). One unit of `concurrency`.
   */
  private async executeBatch(taken: JobRow[]): Promise<void> {
    const deps = this.deps!;
    const job = this.jobs.get(taken[0]!.name)!;
    const batch = job.batch!;
    const rows = [...taken];
    if (rows.length < batch.size) {
      try {
        rows.push(
          ...(await repo.pollJobs(deps.db, {
            workerId: this.workerId,
            finished: [],
            batch: batch.size - rows.length,
            leaseMs: this.options.leaseMs ?? 300_000,
            names: [job.name],
          })),
        );
      } catch (error) {
        this.log.error({ err: error, job: job.name }, 'could not claim more jobs for a batch');
      }
    }
    this.started += rows.length;
    for (const row of rows)
      this.options.observer?.jobStarted(row.name, (Date.now() - new Date(row.run_at).getTime()) / 1000);
    const failures = await runBatch(job, rows, { deps, log: this.log });
    for (const row of rows) {
      if (failures.has(row.id)) await this.recordFailure(job, row, failures.get(row.id));
      else {
        this.finished.push(row.id);
        this.options.observer?.jobRun(row.name, 'succeeded');
      }
    }
  }

  private async execute(row: JobRow): Promise<void> {
    const deps = this.deps!;
    const job = this.jobs.get(row.name)!;
    this.started++;
    this.options.observer?.jobStarted(row.name, (Date.now() - new Date(row.run_at).getTime()) / 1000);
    try {
      if (!Value.Check(job.payload, row.payload)) throw new Error('payload does not match the job schema');
      await job.handle(row.payload as never, { deps, jobId: row.id, attempt: row.attempts, log: this.log });
      // Recorded by the poll this job's end starts (`tick`), which also takes the next job.
      this.finished.push(row.id);
      this.options.observer?.jobRun(row.name, 'succeeded');
    } catch (error) {
      await this.recordFailure(job, row, error);
    }
  }

  /** A job's run failed: queued again after its backoff, or failed for good (no attempt left, or a `PermanentJobError`). */
  private async recordFailure(job: Job<TSchema, D>, row: JobRow, error: unknown): Promise<void> {
    const retry = row.attempts < row.max_attempts && !(error instanceof PermanentJobError);
    this.options.observer?.jobRun(row.name, retry ? 'retrying' : 'failed');
    const message = scrubString(error instanceof Error ? error.message : String(error));
    const retryAt = retry ? new Date(Date.now() + (job.backoffMs ?? defaultBackoffMs)(row.attempts)) : null;
    this.log[retryAt ? 'warn' : 'error'](
      { jobId: row.id, job: row.name, attempt: row.attempts, error: message, retryAt },
      retryAt ? 'job failed, will retry' : 'job failed for good',
    );
    await repo
      .markFailed(this.deps!.db, row.id, this.workerId, message, retryAt)
      .catch((e) => this.log.error({ err: e }, 'could not record job failure'));
  }

  /** Recurring jobs: one per period across all processes, thanks to a job key naming the period. */
  private async scheduleRecurring(): Promise<void> {
    const now = Date.now();
    for (const { job, everyMs } of this.options.recurring ?? []) {
      const period = Math.floor(now / everyMs);
      if (this.lastScheduled.get(job.name) === period) continue;
      await this.add(this.deps!.db, job.name, {}, { jobKey: `${job.name}:${period}` });
      this.lastScheduled.set(job.name, period);
    }
  }
}
