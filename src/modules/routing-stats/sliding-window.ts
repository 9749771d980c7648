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

/**
 * A service's outcomes: `successes` and `failures` (soft declines) make its approval rate when it
 * answers; `errors` (technical failures, timeouts) its availability.
 */
export interface Counts {
  successes: number;
  failures: number;
  errors: number;
}

/**
 * The window (one-minute buckets, the current one included) over which technical errors count
 * against a service's availability: between one and two minutes of history. Errors weigh on a
 * service while they are recent; an outage is the circuit breaker's business, and once over it
 * leaves no trace on the service's approval rate (docs/routing.md, "Success-rate routing").
 */
export const HEALTH_WINDOW_MINUTES = 2;

/** One outcome as counts. */
export const countsOf = (outcome: OutcomeClass): Counts => ({
  successes: outcome === 'success' ? 1 : 0,
  failures: outcome === 'decline' ? 1 : 0,
  errors: outcome === 'error' ? 1 : 0,
});

/** Adds `add` into `into`. */
export function addTo(into: Counts, add: Counts): void {
  into.successes += add.successes;
  into.failures += add.failures;
  into.errors += add.errors;
}

/** The start (epoch ms) of the bucket `ms` falls in. */
export const bucketOf = (ms: number): number => ms - (ms % BUCKET_MS);

/** The first bucket of a window of `windowMinutes` buckets ending with the current one. */
export const windowStartOf = (now: number, windowMinutes: number): number =>
  bucketOf(now) - (windowMinutes - 1) * BUCKET_MS;

/** The posterior mean of Beta(successes + 1, failures + 1): the uniform prior updated by the counts. */
export const approvalRate = (c: Pick<Counts, 'successes' | 'failures'>): number =>
  (c.successes + 1) / (c.successes + c.failures + 2);

/**
 * The share of recent calls the service answered, (answered + 1) / (calls + 1) over the health
 * window: 1 with no error (whatever the volume), falling with each error.
 */
export const availabilityOf = (recent: Counts | undefined): number => {
  if (!recent || recent.errors === 0) return 1;
  const answered = recent.successes + recent.failures;
  return (answered + 1) / (answered + recent.errors + 1);
};

/** The expected share of approvals: the approval rate (over the rule's window) times the availability (health window). */
export const estimatedRate = (c: Pick<Counts, 'successes' | 'failures'>, recent?: Counts): number =>
  approvalRate(c) * availabilityOf(recent);

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
    this.add(bucketOf(at), countsOf(outcome));
  }

  add(bucket: number, add: Counts): void {
    const counts = this.buckets.get(bucket);
    if (counts) addTo(counts, add);
    else this.buckets.set(bucket, { ...add });
    this.forget();
  }

  /** The counts of the buckets inside the window now. */
  totals(): Counts {
    const start = windowStartOf(this.now(), this.windowMinutes);
    const sum = { successes: 0, failures: 0, errors: 0 };
    for (const [bucket, counts] of this.buckets) if (bucket >= start) addTo(sum, counts);
    return sum;
  }

  private forget(): void {
    const start = windowStartOf(this.now(), this.windowMinutes);
    for (const bucket of this.buckets.keys()) if (bucket < start) this.buckets.delete(bucket);
  }
}
