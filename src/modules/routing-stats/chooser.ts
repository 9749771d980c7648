import { OVERALL } from './dimensions.ts';
import { sampleBeta, seededRandom } from './prng.ts';
import { approvalRate, availabilityOf, type Counts } from './sliding-window.ts';

/**
 * The success-rate chooser (docs/routing.md, "Success-rate routing"). Pure and deterministic: the
 * same counts and seed give the same order, so the trace reproduces a decision.
 *
 * Each candidate's approval rate is Beta(successes + 1, failures + 1) over the most specific
 * dimension key with at least `minSamples` answers (the service overall last), else the uniform
 * prior Beta(1, 1); its availability is the share of its recent calls it answered (technical
 * errors over the health window, sliding-window.ts). Its estimated rate is the approval rate's
 * posterior mean times the availability, its Thompson sample a draw of the approval rate times
 * the availability. One uniform draw decides whether this decision explores: with probability
 * `explorationPercent / 100` the candidate with the highest Thompson sample goes first (a service
 * that improved, or a new one, gets traffic); otherwise the one with the highest estimated rate.
 * Exploration is thus bounded by its share, and as evidence grows the samples concentrate on the
 * means, so both branches choose the best service.
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
  /** Soft declines. */
  failures: number;
  samples: number;
  /** Posterior mean of the approval rate. */
  approval_rate: number;
  /** Technical errors at the service overall within the health window. */
  recent_errors: number;
  /** Calls (answers and errors) at the service overall within the health window. */
  recent_calls: number;
  /** (answered + 1) / (calls + 1) over the health window; 1 without errors. */
  availability: number;
  /** approval_rate × availability. */
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

/** Health over the health window, from the service-overall (`*`) counts of that window. */
export interface Health {
  recent_errors: number;
  recent_calls: number;
  availability: number;
}

export function healthOf(serviceId: string, recentOf: CountsOf): Health {
  const recent = recentOf(serviceId, OVERALL);
  return {
    recent_errors: recent?.errors ?? 0,
    recent_calls: recent ? recent.successes + recent.failures + recent.errors : 0,
    availability: availabilityOf(recent),
  };
}

/** A candidate's rate as success-rate routing, least-cost routing and the dry run all judge it. */
export interface JudgedRate {
  /** The key the approval counts are from; null: the prior Beta(1, 1). */
  key: string | null;
  counts: Pick<Counts, 'successes' | 'failures'>;
  /** Posterior mean of the approval rate. */
  approval: number;
  health: Health;
  /** approval × availability. */
  rate: number;
}

/** The approval rate's evidence over the rule's window times the availability over the health window. */
export function judgeRate(
  serviceId: string,
  keys: readonly string[],
  countsOf: CountsOf,
  recentOf: CountsOf,
  minSamples: number,
): JudgedRate {
  const { key, counts } = evidenceOf(serviceId, keys, countsOf, minSamples);
  const approval = approvalRate(counts);
  const health = healthOf(serviceId, recentOf);
  return { key, counts, approval, health, rate: approval * health.availability };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** The counts a candidate is judged by: the most specific key with enough samples, else the prior. */
export function evidenceOf(
  serviceId: string,
  keys: readonly string[],
  countsOf: CountsOf,
  minSamples: number,
): { key: string | null; counts: Pick<Counts, 'successes' | 'failures'> } {
  for (const key of keys) {
    const counts = countsOf(serviceId, key);
    if (counts && counts.successes + counts.failures >= minSamples)
      return { key, counts: { successes: counts.successes, failures: counts.failures } };
  }
  return { key: null, counts: { successes: 0, failures: 0 } };
}

/**
 * Orders `candidates` (eligible services, in the rule's order) for one transaction. `countsOf`:
 * the counts over the rule's window; `recentOf`: over the health window.
 */
export function chooseBySuccessRate(
  candidates: readonly string[],
  keys: readonly string[],
  countsOf: CountsOf,
  recentOf: CountsOf,
  params: SuccessRateParams,
  seed: string,
): SuccessRateChoice {
  const random = seededRandom(seed);
  const draw = random();
  const explored = draw < params.explorationPercent / 100;
  const estimates = candidates.map((id): CandidateEstimate => {
    const { key, counts, approval, health, rate } = judgeRate(id, keys, countsOf, recentOf, params.minSamples);
    return {
      payment_service_id: id,
      dimension_key: key,
      successes: counts.successes,
      failures: counts.failures,
      samples: counts.successes + counts.failures,
      approval_rate: approval,
      ...health,
      estimated_rate: rate,
      sampled_value: sampleBeta(counts.successes + 1, counts.failures + 1, random) * health.availability,
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
        approval_rate: round(e.approval_rate),
        availability: round(e.availability),
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
      : `${chosen.samples} answers at ${chosen.dimension_key === OVERALL ? 'the service overall (*)' : chosen.dimension_key}`;
  const health =
    chosen.recent_errors > 0
      ? `; availability ${round(chosen.availability)}: ${chosen.recent_errors} errors in ${chosen.recent_calls} recent calls`
      : '';
  if (count === 1) return `the only eligible service (${basis}${health})`;
  return explored
    ? `exploration (the draw fell in the exploration share): highest sampled value ${round(chosen.sampled_value)} (${basis}${health})`
    : `highest estimated rate ${round(chosen.estimated_rate)} (${basis}${health})`;
}
