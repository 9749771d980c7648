import type { CircuitState } from '../circuit-breakers/circuit-state.ts';
import { exactMinor, expectedCost, roundedMinor, type FeeEntry } from '../payment-services/fee-schedule.ts';
import { evidenceOf, healthOf, type CountsOf } from '../routing-stats/chooser.ts';
import type { CostFacts } from '../routing-stats/least-cost-route.ts';
import { approvalRate } from '../routing-stats/sliding-window.ts';
import type { DryRunServiceFigures } from './dry-run.schemas.ts';

/**
 * A service's figures in the dry run whatever the rule's strategy (docs/routing.md, "Dry run"):
 * its circuit, its success-rate estimate and its expected cost, computed by the functions routing
 * uses (`evidenceOf`, `approvalRate` and `healthOf` of success-rate and least-cost routing, `expectedCost` of
 * least-cost routing), so a static rule shows what the other strategies would have weighed. Pure.
 */
export function serviceFigures(
  serviceId: string,
  feeSchedule: readonly FeeEntry[] | null,
  circuit: CircuitState,
  evidence: { keys: readonly string[]; countsOf: CountsOf; recentOf: CountsOf; minSamples: number },
  facts: CostFacts,
): DryRunServiceFigures {
  const { key, counts } = evidenceOf(serviceId, evidence.keys, evidence.countsOf, evidence.minSamples);
  const cost = expectedCost(feeSchedule, facts, facts.amount);
  const { availability } = healthOf(serviceId, evidence.recentOf);
  return {
    circuit,
    estimated_rate: Math.round(approvalRate(counts) * availability * 1e6) / 1e6,
    rate_known: key !== null,
    samples: counts.successes + counts.failures,
    dimension_key: key,
    expected_cost: cost.known
      ? { amount: roundedMinor(cost.micros), exact: exactMinor(cost.micros), currency: cost.currency }
      : null,
    cost_unknown_because: cost.known ? null : cost.reason,
  };
}
