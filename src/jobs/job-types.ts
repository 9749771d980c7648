import type { TSchema, Static } from 'typebox';

/**
 * The job contract as the queue sees it, free of what the process builds: `D` is what a job is
 * handed to work with (context.ts `Deps`, which job.ts fills in for the server's jobs). The queue
 * takes it from here and never imports context.ts, whose `Deps` holds the queue.
 */

/** What a running job is handed. */
export interface JobRun<D> {
  deps: D;
  jobId: string;
  attempt: number;
  log: {
    info(obj: object, msg?: string): void;
    warn(obj: object, msg?: string): void;
    error(obj: object, msg?: string): void;
  };
}

/**
 * A background job. Payloads carry ids only (never card data, secrets or whole resources) and are
 * validated again when dequeued, because older code may have written them. Handlers are
 * idempotent: a job can run more than once (a worker can die after the work, before the ack).
 */
export interface Job<P extends TSchema, D> {
  name: string;
  payload: P;
  maxAttempts: number;
  /** Delay before retry `attempt` (1-based), in milliseconds. Default: exponential with jitter. */
  backoffMs?: (attempt: number) => number;
  handle(payload: Static<P>, ctx: JobRun<D>): Promise<void>;
  /**
   * Optional: runs up to `size` due jobs of this name at once (decision 0151). The queue claims
   * them together (one statement, SKIP LOCKED) and hands them over here in place of `handle`; it
   * resolves to the failures by job id, the others having succeeded, and each failure is retried
   * (or failed) on its own. A throw fails them all. Each job must still be idempotent and applied
   * once, whatever the other jobs of the batch.
   */
  /**
   * Optional: the job mostly waits on an outside HTTP call (a webhook receiver, an anti-fraud
   * service) and holds no database connection or transaction while it waits (decision 0153). The
   * worker runs such jobs in slots of their own (`networkConcurrency`, JOB_NETWORK_CONCURRENCY),
   * so slow receivers neither take the slots of the database-bound jobs (the settlements) nor wait
   * behind them.
   */
  network?: true;
  batch?: {
    size: number;
    handle(runs: ReadonlyArray<BatchItem<Static<P>>>, ctx: BatchRun<D>): Promise<ReadonlyMap<string, unknown>>;
  };
}

/** One job of a batch: its payload (checked), id and attempt. */
export interface BatchItem<P> {
  payload: P;
  jobId: string;
  attempt: number;
}

/** What a batch of jobs is handed. */
export type BatchRun<D> = Omit<JobRun<D>, 'jobId' | 'attempt'>;

/** 2^attempt seconds (capped at one hour), plus up to 20 % jitter so retries do not bunch up. */
export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(3_600_000, 1000 * 2 ** attempt);
  return Math.round(base * (1 + Math.random() * 0.2));
}

/**
 * A failure no retry can fix (the provider refused the request's shape or credentials, the
 * resource is gone): the queue marks the job failed at once, with this message as its last error.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}
