import type { PaymentServiceRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import type { RouteOutcome } from '../flows/flow-decisions.ts';
import { expectedCost, type FeeFacts } from '../payment-services/fee-schedule.ts';
import { chooseByLeastCost, type LeastCostChoice } from './least-cost.ts';
import { HEALTH_WINDOW_MINUTES } from './sliding-window.ts';
import type { RoutingStats } from './stats-store.ts';

/** What routing calls to order a rule's eligible services (flow-route.ts `ServiceRanker`). */
export type LeastCostRanker = (eligible: readonly string[]) => LeastCostChoice & { strategy: 'least_cost' };

/** The transaction as least-cost routing sees it: what the fee entries match, and the amount. */
export interface CostFacts extends FeeFacts {
  amount: number;
}

/**
 * The ranker of a `route-transaction` rule with strategy `least_cost`, null otherwise. Reads the
 * account's counts first (the per-process cache; `db` on a miss); the fee schedules come with the
 * routable services (`rows`, their per-process cache), so ranking is synchronous and pure.
 */
export async function leastCostRanker(
  stats: RoutingStats,
  db: Executor,
  merchantAccountId: string,
  outcome: RouteOutcome,
  keys: readonly string[],
  facts: CostFacts,
  rows: readonly PaymentServiceRow[],
): Promise<LeastCostRanker | null> {
  if (outcome.strategy !== 'least_cost') return null;
  const countsOf = await stats.view(merchantAccountId, outcome.window_minutes, db);
  const recentOf = await stats.view(merchantAccountId, HEALTH_WINDOW_MINUTES, db);
  const schedules = new Map(rows.map((r) => [r.id, r.fee_schedule]));
  const params = {
    minSamples: outcome.min_samples,
    windowMinutes: outcome.window_minutes,
    costMarginPercent: outcome.cost_margin_percent,
  };
  return (eligible) => ({
    strategy: 'least_cost',
    ...chooseByLeastCost(
      eligible.map((id) => ({ id, cost: expectedCost(schedules.get(id) ?? null, facts, facts.amount) })),
      keys,
      countsOf,
      recentOf,
      params,
    ),
  });
}
