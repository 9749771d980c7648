import type { Executor } from '../../db/transaction.ts';
import type { RouteOutcome } from '../flows/flow-decisions.ts';
import { chooseBySuccessRate, type SuccessRateChoice } from './chooser.ts';
import { HEALTH_WINDOW_MINUTES } from './sliding-window.ts';
import type { RoutingStats } from './stats-store.ts';

/** What routing calls to order a rule's eligible services (flow-route.ts `ServiceRanker`). */
export type SuccessRateRanker = (eligible: readonly string[]) => SuccessRateChoice & { strategy: 'success_rate' };

/**
 * The ranker of a `route-transaction` rule with strategy `success_rate`, null for `static`. Reads
 * the account's counts first (the per-process cache; `db` on a miss), so ranking itself is
 * synchronous and pure. `seed`: the transaction's id, so the trace reproduces the draws.
 */
export async function successRateRanker(
  stats: RoutingStats,
  db: Executor,
  merchantAccountId: string,
  outcome: RouteOutcome,
  keys: readonly string[],
  seed: string,
): Promise<SuccessRateRanker | null> {
  if (outcome.strategy !== 'success_rate') return null;
  const countsOf = await stats.view(merchantAccountId, outcome.window_minutes, db);
  const recentOf = await stats.view(merchantAccountId, HEALTH_WINDOW_MINUTES, db);
  const params = {
    minSamples: outcome.min_samples,
    explorationPercent: outcome.exploration_percent,
    windowMinutes: outcome.window_minutes,
  };
  return (eligible) => ({
    strategy: 'success_rate',
    ...chooseBySuccessRate(eligible, keys, countsOf, recentOf, params, seed),
  });
}
