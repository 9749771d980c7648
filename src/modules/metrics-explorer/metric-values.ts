import type { MetricName } from '../../db/schema-insights.ts';
import type { Interval } from './datetime-range.ts';
import type { Counts } from './metrics.repo.ts';

/** Pure arithmetic of the metrics explorer: buckets, metric values and deltas (docs/insights.md). */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The longest window a query may cover. */
export const MAX_WINDOW_MS = 366 * DAY_MS;

/** Minutes up to two hours, hours up to a week (the 24 h and 7 d views), days beyond (the 30 d view). */
export function bucketStep(lengthMs: number): { ms: number; iso: string } {
  if (lengthMs <= 2 * HOUR_MS) return { ms: MINUTE_MS, iso: 'PT1M' };
  if (lengthMs <= 7 * DAY_MS) return { ms: HOUR_MS, iso: 'PT1H' };
  return { ms: DAY_MS, iso: 'P1D' };
}

/** The first bucket starts at the window's start rounded down to the step, in UTC. */
export function bucketOrigin(window: Interval, stepMs: number): Date {
  return new Date(Math.floor(window.start.getTime() / stepMs) * stepMs);
}

export function bucketCount(window: Interval, stepMs: number): number {
  return Math.ceil((window.end.getTime() - bucketOrigin(window, stepMs).getTime()) / stepMs);
}

export const EMPTY: Counts = { total: 0, authorized: 0, declined: 0, flowDeclines: 0, volume: 0 };

export function addCounts(a: Counts, b: Counts): Counts {
  return {
    total: a.total + b.total,
    authorized: a.authorized + b.authorized,
    declined: a.declined + b.declined,
    flowDeclines: a.flowDeclines + b.flowDeclines,
    volume: a.volume + b.volume,
  };
}

/**
 * `auth_rate = num_authorized / num_processed`, where processed = authorized + declined − flow
 * declines (failed and pending transactions are out); null without processed transactions.
 */
export function metricValue(metric: MetricName, c: Counts): number | null {
  if (metric === 'transactions') return c.total;
  if (metric === 'volume') return c.volume;
  const processed = c.authorized + c.declined - c.flowDeclines;
  return processed > 0 ? round(c.authorized / processed) : null;
}

/** Rates keep 4 decimals (0.01 % resolution); counts and amounts are whole already. */
const round = (x: number) => Math.round(x * 10_000) / 10_000;

/** Percentage change for volume and transactions, absolute difference for the rate; null when it cannot be told. */
export function delta(metric: MetricName, current: number | null, previous: number | null): number | null {
  if (current === null || previous === null) return null;
  if (metric === 'auth_rate') return round(current - previous);
  return previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 100;
}

/** ISO 8601 without milliseconds, as the interval strings show it. */
export const isoSeconds = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');
