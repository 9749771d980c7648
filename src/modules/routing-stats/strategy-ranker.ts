import type { PaymentServiceRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import type { RouteOutcome } from '../flows/flow-decisions.ts';
import { leastCostRanker, type CostFacts, type LeastCostRanker } from './least-cost-route.ts';
import { successRateRanker, type SuccessRateRanker } from './success-rate-route.ts';
import type { RoutingStats } from './stats-store.ts';

export interface StrategyInputs {
  stats: RoutingStats;
  db: Executor;
  merchantAccountId: string;
  outcome: RouteOutcome;
  /** The transaction's dimension keys, most specific first. */
  keys: readonly string[];
  /** Seeds success-rate routing's draws: the transaction's id (the dry run: external_identifier, else `dry-run`). */
  seed: string;
  facts: CostFacts;
  /** The routable services of the account (their fee schedules). */
  rows: readonly PaymentServiceRow[];
}

/** The ranker of a rule's strategy: success_rate or least_cost; null for static (the listed order or the weighted draw). */
export async function strategyRanker(input: StrategyInputs): Promise<SuccessRateRanker | LeastCostRanker | null> {
  const { stats, db, merchantAccountId, outcome, keys } = input;
  return (
    (await successRateRanker(stats, db, merchantAccountId, outcome, keys, input.seed)) ??
    (await leastCostRanker(stats, db, merchantAccountId, outcome, keys, input.facts, input.rows))
  );
}
