import { OVERALL } from './dimensions.ts';
import { sampleBeta, seededRandom } from './prng.ts';
import { estimatedRate, type Counts } from './sliding-window.ts';

/**
 * The success-rate chooser (docs/routing.md, "Success-rate routing"). Pure and deterministic: the
 * same counts and seed give the same order, so the trace reproduces a decision.
 *
 * Each candidate's rate is Beta(successes + 1, failures + 1) over the most specific dimension key
 * with at least `minSamples` outcomes (the service overall last), else the uniform prior Beta(1, 1).
 * One uniform draw decides whether this decision explores: with probability
 * `explorationPercent / 100` the candidate with the highest Thompson sample goes first (a service
 * that improved, or a new one, gets traffic); otherwise the one with the highest estimated rate
 * (the posterior mean). Exploration is thus bounded by its share, and as evidence grows the
 * samples concentrate on the means, so both branches choose the best service.
 */
export interface SuccessRateParams {
  minSamples: number;
  explorationPercent: number;
  windowMinutes: number;
}

export interface CandidateEstimate {
  payment_service_id: string;
  /** The key the counts are from; null: fewer than min_samples at every level, the prior Beta(1, 1). */
  dimension_key: string | null;
  successes: number;
  failures: number;
  samples: number;
  /** Posterior mean. */
  estimated_rate: number;
  /** This decision's Thompson sample. */
  sampled_value: number;
}

export interface SuccessRateExplanation {
  /** What the generator was seeded with (the transaction's id). */
  seed: string;
  /** The first uniform draw: below exploration_percent / 100 the decision explores. */
  draw: number;
  explored: boolean;
  min_samples: number;
  exploration_percent: number;
  window_minutes: number;
  chosen: string;
  reason: string;
  /** In the rule's order. */
  candidates: CandidateEstimate[];
}

export interface SuccessRateChoice {
  /** The candidates in the order to try them: the chosen one, then by estimated rate. */
  order: string[];
  explanation: SuccessRateExplanation;
}

/** Counts of a service under a key within the window (undefined: none). */
export type CountsOf = (serviceId: string, key: string) => Counts | undefined;

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** The counts a candidate is judged by: the most specific key with enough samples, else the prior. */
export function evidenceOf(
  serviceId: string,
  keys: readonly string[],
  countsOf: CountsOf,
  minSamples: number,
): { key: string | null; counts: Counts } {
  for (const key of keys) {
    const counts = countsOf(serviceId, key);
    if (counts && counts.successes + counts.failures >= minSamples) return { key, counts };
  }
  return { key: null, counts: { successes: 0, failures: 0 } };
}

/** Orders `candidates` (eligible services, in the rule's order) for one transaction. */
export function chooseBySuccessRate(
  candidates: readonly string[],
  keys: readonly string[],
  countsOf: CountsOf,
  params: SuccessRateParams,
  seed: string,
): SuccessRateChoice {
  const random = seededRandom(seed);
  const draw = random();
  const explored = draw < params.explorationPercent / 100;
  const estimates = candidates.map((id): CandidateEstimate => {
    const { key, counts } = evidenceOf(id, keys, countsOf, params.minSamples);
    return {
      payment_service_id: id,
      dimension_key: key,
      successes: counts.successes,
      failures: counts.failures,
      samples: counts.successes + counts.failures,
      estimated_rate: estimatedRate(counts),
      sampled_value: sampleBeta(counts.successes + 1, counts.failures + 1, random),
    };
  });
  // Ties keep the rule's order (a stable sort; the first of equals wins the argmax).
  const byRate = [...estimates].sort((a, b) => b.estimated_rate - a.estimated_rate);
  let chosen = byRate[0]!;
  if (explored) {
    chosen = estimates[0]!;
    for (const e of estimates) if (e.sampled_value > chosen.sampled_value) chosen = e;
  }
  const order = [chosen.payment_service_id, ...byRate.filter((e) => e !== chosen).map((e) => e.payment_service_id)];
  return {
    order,
    explanation: {
      seed,
      draw: round(draw),
      explored,
      min_samples: params.minSamples,
      exploration_percent: params.explorationPercent,
      window_minutes: params.windowMinutes,
      chosen: chosen.payment_service_id,
      reason: reasonOf(chosen, explored, estimates.length),
      candidates: estimates.map((e) => ({
        ...e,
        estimated_rate: round(e.estimated_rate),
        sampled_value: round(e.sampled_value),
      })),
    },
  };
}

function reasonOf(chosen: CandidateEstimate, explored: boolean, count: number): string {
  const basis =
    chosen.dimension_key === null
      ? 'no key has min_samples outcomes yet: the prior Beta(1, 1)'
      : `${chosen.samples} outcomes at ${chosen.dimension_key === OVERALL ? 'the service overall (*)' : chosen.dimension_key}`;
  if (count === 1) return `the only eligible service (${basis})`;
  return explored
    ? `exploration (the draw fell in the exploration share): highest sampled value ${round(chosen.sampled_value)} (${basis})`
    : `highest estimated rate ${round(chosen.estimated_rate)} (${basis})`;
}
