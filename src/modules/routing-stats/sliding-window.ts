import type { OutcomeClass } from './outcome-class.ts';

/**
 * Success rates over a sliding window of one-minute buckets (docs/routing.md, "Success-rate
 * routing"). A bucket is counted while any part of it is inside the window: `window_minutes`
 * buckets, the current one included. Old buckets fall out whole, so a rate forgets the past
 * minute by minute, and counts add across processes (a bucket is one row per key in the database).
 */
export const BUCKET_MS = 60_000;
/** The longest window a rule may set (`window_minutes`): older buckets are purged. */
export const MAX_WINDOW_MINUTES = 1_440;

export interface Counts {
  successes: number;
  failures: number;
}

/** The start (epoch ms) of the bucket `ms` falls in. */
export const bucketOf = (ms: number): number => ms - (ms % BUCKET_MS);

/** The first bucket of a window of `windowMinutes` buckets ending with the current one. */
export const windowStartOf = (now: number, windowMinutes: number): number =>
  bucketOf(now) - (windowMinutes - 1) * BUCKET_MS;

/** The posterior mean of Beta(successes + 1, failures + 1): the uniform prior updated by the counts. */
export const estimatedRate = (c: Counts): number => (c.successes + 1) / (c.successes + c.failures + 2);

/** One service's outcomes under one key, by bucket; the clock is injectable (tests, the bench's simulated time). */
export class SlidingWindow {
  private readonly buckets = new Map<number, Counts>();

  constructor(
    private readonly windowMinutes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one classified outcome (null: not counted) at `at`. */
  record(outcome: OutcomeClass | null, at: number = this.now()): void {
    if (outcome === null) return;
    this.add(bucketOf(at), outcome === 'success' ? 1 : 0, outcome === 'failure' ? 1 : 0);
  }

  add(bucket: number, successes: number, failures: number): void {
    const counts = this.buckets.get(bucket);
    if (counts) {
      counts.successes += successes;
      counts.failures += failures;
    } else this.buckets.set(bucket, { successes, failures });
    this.forget();
  }

  /** The counts of the buckets inside the window now. */
  totals(): Counts {
    const start = windowStartOf(this.now(), this.windowMinutes);
    const sum = { successes: 0, failures: 0 };
    for (const [bucket, counts] of this.buckets) {
      if (bucket < start) continue;
      sum.successes += counts.successes;
      sum.failures += counts.failures;
    }
    return sum;
  }

  private forget(): void {
    const start = windowStartOf(this.now(), this.windowMinutes);
    for (const bucket of this.buckets.keys()) if (bucket < start) this.buckets.delete(bucket);
  }
}
