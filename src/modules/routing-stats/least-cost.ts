import { exactMinor, roundedMinor, type CostUnknown, type ExpectedCost } from '../payment-services/fee-schedule.ts';
import { judgeRate, type CountsOf, type Health } from './chooser.ts';
import { OVERALL } from './dimensions.ts';

/**
 * The least-cost chooser (docs/routing.md, "Least-cost routing"). Pure and deterministic (no
 * draw): the same costs and counts give the same order, so the trace reproduces a decision.
 *
 * Each candidate's rate is the success-rate estimate (the approval rate's posterior mean over the
 * most specific key with `minSamples` answers times the availability, as chooser.ts judges it). A candidate is within the margin when
 * its rate is at least the best known rate minus `costMarginPercent` points, or when its rate is
 * unknown (fewer than `minSamples` outcomes even for the service overall: it is measured before it
 * is judged). Among those the lowest expected cost goes first (services whose cost is unknown
 * after every known cost; ties: the higher rate, then the rule's order). The others follow by
 * rate, the failover order.
 */
export interface LeastCostParams {
  minSamples: number;
  windowMinutes: number;
  /** Points of authorization rate (0.5 = half a percentage point). */
  costMarginPercent: number;
}

export interface CostedService {
  id: string;
  cost: ExpectedCost;
}

export interface LeastCostCandidate {
  payment_service_id: string;
  /** null: unknown (`cost_unknown_because` says why). */
  expected_cost: { amount: number; exact: string; currency: string } | null;
  cost_unknown_because: CostUnknown | null;
  /** The fee schedule entry applied (index into the service's entries); null: none matched. */
  fee_entry_index: number | null;
  dimension_key: string | null;
  successes: number;
  failures: number;
  samples: number;
  approval_rate: number;
  recent_errors: number;
  recent_calls: number;
  availability: number;
  estimated_rate: number;
  /** false: fewer than min_samples outcomes at every key. */
  rate_known: boolean;
  within_margin: boolean;
}

export interface LeastCostExplanation {
  cost_margin_percent: number;
  min_samples: number;
  window_minutes: number;
  /** The highest known estimated rate; null when no candidate's rate is known. */
  best_rate: number | null;
  chosen: string;
  reason: string;
  /** In the rule's order. */
  candidates: LeastCostCandidate[];
}

export interface LeastCostChoice {
  order: string[];
  explanation: LeastCostExplanation;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
// Rates are posterior means (floats): a rate that equals the floor but for rounding is within.
const EPSILON = 1e-9;

interface Judged {
  service: CostedService;
  index: number;
  key: string | null;
  successes: number;
  failures: number;
  approval: number;
  health: Health;
  rate: number;
  known: boolean;
  within: boolean;
}

/** Lower known cost first, unknown costs last; then the higher rate; then the rule's order. */
function cheaperFirst(a: Judged, b: Judged): number {
  const ca = a.service.cost;
  const cb = b.service.cost;
  if (ca.known !== cb.known) return ca.known ? -1 : 1;
  if (ca.known && cb.known && ca.micros !== cb.micros) return ca.micros < cb.micros ? -1 : 1;
  if (a.rate !== b.rate) return b.rate - a.rate;
  return a.index - b.index;
}

/** Orders `candidates` (eligible services, in the rule's order, with their expected cost) for one transaction. */
export function chooseByLeastCost(
  candidates: readonly CostedService[],
  keys: readonly string[],
  countsOf: CountsOf,
  recentOf: CountsOf,
  params: LeastCostParams,
): LeastCostChoice {
  const judged: Judged[] = candidates.map((service, index) => {
    const { key, counts, approval, health, rate } = judgeRate(service.id, keys, countsOf, recentOf, params.minSamples);
    return { service, index, key, ...counts, approval, health, rate, known: key !== null, within: true };
  });
  const known = judged.filter((j) => j.known).map((j) => j.rate);
  const best = known.length > 0 ? Math.max(...known) : null;
  for (const j of judged)
    j.within = !j.known || best === null || (best - j.rate) * 100 <= params.costMarginPercent + EPSILON;
  const chosen = judged.filter((j) => j.within).sort(cheaperFirst)[0]!;
  const byRate = [...judged].sort((a, b) => b.rate - a.rate || a.index - b.index);
  return {
    order: [chosen.service.id, ...byRate.filter((j) => j !== chosen).map((j) => j.service.id)],
    explanation: {
      cost_margin_percent: params.costMarginPercent,
      min_samples: params.minSamples,
      window_minutes: params.windowMinutes,
      best_rate: best === null ? null : round(best),
      chosen: chosen.service.id,
      reason: reasonOf(chosen, judged, params, best),
      candidates: judged.map(candidateOf),
    },
  };
}

function candidateOf(j: Judged): LeastCostCandidate {
  const cost = j.service.cost;
  return {
    payment_service_id: j.service.id,
    expected_cost: cost.known
      ? { amount: roundedMinor(cost.micros), exact: exactMinor(cost.micros), currency: cost.currency }
      : null,
    cost_unknown_because: cost.known ? null : cost.reason,
    fee_entry_index: cost.entryIndex,
    dimension_key: j.key,
    successes: j.successes,
    failures: j.failures,
    samples: j.successes + j.failures,
    approval_rate: round(j.approval),
    recent_errors: j.health.recent_errors,
    recent_calls: j.health.recent_calls,
    availability: round(j.health.availability),
    estimated_rate: round(j.rate),
    rate_known: j.known,
    within_margin: j.within,
  };
}

function reasonOf(chosen: Judged, all: readonly Judged[], params: LeastCostParams, best: number | null): string {
  const rate = chosen.known
    ? `its rate ${round(chosen.rate)} from ${chosen.successes + chosen.failures} outcomes at ${chosen.key === OVERALL ? 'the service overall (*)' : chosen.key}`
    : `its rate unknown: fewer than ${params.minSamples} outcomes, within the margin until measured`;
  if (all.length === 1) return `the only eligible service (${rate})`;
  const scope =
    best === null
      ? 'no candidate has a known rate yet'
      : `best rate ${round(best)}, margin ${params.costMarginPercent} points`;
  const cost = chosen.service.cost;
  if (!cost.known)
    return `no service within the margin has a known cost: the highest rate goes first (${scope}; ${rate})`;
  const amount = `${exactMinor(cost.micros)} ${cost.currency}`;
  const within = all.filter((j) => j.within).length;
  return within === 1
    ? `the only service within the margin, expected cost ${amount} (${scope}; ${rate})`
    : `lowest expected cost ${amount} of the ${within} services within the margin (${scope}; ${rate})`;
}
