import type { Db } from '../db/client.ts';
import { tooManyRequests } from '../errors/app-error.ts';
import { countHit } from '../modules/rate-limits/rate-limits.repo.ts';

export interface RateLimitOptions {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  now?: () => number;
}

/**
 * Fixed-window limiter whose counters live in PostgreSQL, so every server process shares them.
 * The window is aligned on the clock (minute 12:00:00–12:00:59, ...): the `limit`-th request of a
 * window passes, the next is refused with 429 and a Retry-After until the window ends.
 */
export class RateLimiter {
  constructor(
    private readonly db: Db,
    private readonly options: RateLimitOptions,
  ) {}

  private window(): { now: number; start: number; end: number } {
    const now = this.options.now?.() ?? Date.now();
    const start = Math.floor(now / this.options.windowMs) * this.options.windowMs;
    return { now, start, end: start + this.options.windowMs };
  }

  async hit(bucket: string): Promise<void> {
    const { now, start, end } = this.window();
    // Counters outlive their window by one more window, then the purge job removes them.
    const count = await countHit(this.db, bucket, new Date(start), new Date(end + this.options.windowMs));
    if (count > this.options.limit) throw tooManyRequests((end - now) / 1000);
  }
}
