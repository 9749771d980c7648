import type { Deps } from '../../../context.ts';
import { FAILED_SESSION_LOOKUPS_PER_MINUTE } from '../../../http/auth.ts';
import { RateLimiter } from '../../../http/rate-limit.ts';

/**
 * Enumeration prevention on the hosted page (spec "Limits"): its calls that create sessions and pay
 * count EMBED_RATE_LIMIT_PER_MINUTE per link, and a payment also counts against its checkout
 * session's budget, which the session's fields endpoint shares. Unknown links are counted per
 * client address, like unknown checkout session ids, so link ids cannot be guessed at speed.
 */
export interface PageLimits {
  calls: RateLimiter;
  lookups: RateLimiter;
}

const byDeps = new WeakMap<Deps, PageLimits>();

export function pageLimits(deps: Deps): PageLimits {
  let limits = byDeps.get(deps);
  if (!limits) {
    limits = {
      calls: new RateLimiter(deps.db, { limit: deps.config.embedRateLimitPerMinute, windowMs: 60_000 }),
      lookups: new RateLimiter(deps.db, { limit: FAILED_SESSION_LOOKUPS_PER_MINUTE, windowMs: 60_000 }),
    };
    byDeps.set(deps, limits);
  }
  return limits;
}

export const linkBucket = (merchantAccountId: string, id: string) => `payment-link:${merchantAccountId}/${id}`;
/** The bucket the checkout session's fields endpoint counts in (http/auth.ts). */
export const sessionBucket = (sessionId: string) => `checkout-session:${sessionId}`;
export const lookupBucket = (ip: string) => `payment-link-lookup:${ip}`;
