import type { Deps } from '../context.ts';
import { AppError } from '../errors/app-error.ts';
import { RateLimiter } from './rate-limit.ts';

/** Unknown, malformed or expired ids one client address may try per minute, on all tokenless lookups together. */
export const FAILED_LOOKUPS_PER_MINUTE = 50;

/**
 * Lookups by an id that is itself the credential (checkout session fields, Click to Pay, payment
 * link pages, provider returns, sandbox pages; docs/security.md, "Routes without a bearer token").
 * Misses are counted per client address (request.ip: the TCP peer, or the client a trusted proxy
 * names, TRUST_PROXY) in one budget for all of them; once an address has spent it, its misses are
 * refused with 429 until the minute ends.
 *
 * An id that exists is always served, whatever its address's count: behind a proxy or a shared NAT
 * many buyers share an address, and one noisy client must not turn off card entry for all of them.
 * A spent address can therefore still tell a hit (served) from a miss (429), so the budget does not
 * bound how many ids an address may try; what makes guessing useless is the ids themselves: random
 * UUIDs (v4: 122 random bits), so even 10^12 guesses against 10^9 live ids find one with a
 * probability below 10^-15. The budget keeps honest-looking traffic from turning into a guessing
 * load: a client that respects 429 and Retry-After makes at most 50 misses a minute.
 */
export class FailedLookups {
  private readonly limiter: RateLimiter;

  constructor(deps: Pick<Deps, 'db'>) {
    this.limiter = new RateLimiter(deps.db, { limit: FAILED_LOOKUPS_PER_MINUTE, windowMs: 60_000 });
  }

  /** Counts a miss of `clientAddress`; throws 429 (with Retry-After) once the address is over its budget. */
  async miss(clientAddress: string): Promise<void> {
    await this.limiter.hit(`failed-lookup:${clientAddress}`);
  }

  /** Runs a lookup; its `not_found` counts as a miss of `clientAddress` (and becomes 429 over the budget). */
  async guard<T>(clientAddress: string, lookup: () => Promise<T>): Promise<T> {
    try {
      return await lookup();
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') await this.miss(clientAddress);
      throw error;
    }
  }
}

const byDeps = new WeakMap<Deps, FailedLookups>();

/** The process's failed-lookup counter for `deps` (the counts themselves live in the database, shared by every process). */
export function failedLookups(deps: Deps): FailedLookups {
  let lookups = byDeps.get(deps);
  if (!lookups) {
    lookups = new FailedLookups(deps);
    byDeps.set(deps, lookups);
  }
  return lookups;
}
