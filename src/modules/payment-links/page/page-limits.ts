import type { Deps } from '../../../context.ts';
import { RateLimiter } from '../../../http/rate-limit.ts';

/**
 * Enumeration prevention on the hosted page (spec "Limits"): its calls that create sessions and pay
 * count EMBED_RATE_LIMIT_PER_MINUTE per link, and a payment also counts against its checkout
 * session's budget, which the session's fields endpoint shares. Unknown links are misses of the
 * client address, in the budget unknown checkout session ids spend too (http/failed-lookups.ts).
 */
export interface PageLimits {
  calls: RateLimiter;
}

const byDeps = new WeakMap<Deps, PageLimits>();

export function pageLimits(deps: Deps): PageLimits {
  let limits = byDeps.get(deps);
  if (!limits) {
    limits = { calls: new RateLimiter(deps.db, { limit: deps.config.embedRateLimitPerMinute, windowMs: 60_000 }) };
    byDeps.set(deps, limits);
  }
  return limits;
}

export const linkBucket = (merchantAccountId: string, id: string) => `payment-link:${merchantAccountId}/${id}`;
/** The bucket the checkout session's fields endpoint counts in (http/auth.ts). */
export const sessionBucket = (sessionId: string) => `checkout-session:${sessionId}`;
