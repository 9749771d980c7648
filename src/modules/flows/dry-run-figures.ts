import type { CircuitState } from '../circuit-breakers/circuit-state.ts';
import { exactMinor, expectedCost, roundedMinor, type FeeEntry } from '../payment-services/fee-schedule.ts';
import { judgeRate, type CountsOf } from '../routing-stats/chooser.ts';
import type { CostFacts } from '../routing-stats/least-cost-route.ts';
import type { DryRunServiceFigures } from './dry-run.schemas.ts';

/**
 * A service's figures in the dry run whatever the rule's strategy (docs/routing.md, "Dry run"):
 * its circuit, its success-rate estimate and its expected cost, computed by the functions routing
 * uses (`judgeRate` of success-rate and least-cost routing, `expectedCost` of least-cost routing), so a static rule shows what the other strategies would have weighed. Pure.
 */
export function serviceFigures(
  serviceId: string,
  feeSchedule: readonly FeeEntry[] | null,
  circuit: CircuitState,
  evidence: { keys: readonly string[]; countsOf: CountsOf; recentOf: CountsOf; minSamples: number },
  facts: CostFacts,
): DryRunServiceFigures {
  const { key, counts, rate } = judgeRate(
    serviceId,
    evidence.keys,
    evidence.countsOf,
    evidence.recentOf,
    evidence.minSamples,
  );
  const cost = expectedCost(feeSchedule, facts, facts.amount);
  return {
    circuit,
    estimated_rate: Math.round(rate * 1e6) / 1e6,
    rate_known: key !== null,
    samples: counts.successes + counts.failures,
    dimension_key: key,
    expected_cost: cost.known
      ? { amount: roundedMinor(cost.micros), exact: exactMinor(cost.micros), currency: cost.currency }
      : null,
    cost_unknown_because: cost.known ? null : cost.reason,
  };
}
