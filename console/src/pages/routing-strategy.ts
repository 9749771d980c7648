/**
 * The route-transaction strategy of a rule (docs/routing.md, "Outcomes", "Success-rate routing",
 * "Least-cost routing", "Elimination", "Step-up authentication on retry"): the choices in plain
 * words, their parameters with the API's limits, and the form's values as outcome fields.
 */

export const STRATEGIES = ['static', 'success_rate', 'least_cost'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const STRATEGY_TEXT: Record<Strategy, { title: string; explanation: string }> = {
  static: {
    title: 'Listed order',
    explanation: 'The payment services are tried in the order you checked them above. Nothing is measured.',
  },
  success_rate: {
    title: 'Best success rate',
    explanation:
      'Each payment goes first to the service that has recently approved the most payments like it (same card scheme, currency and country). A small share goes to another service, so one that got better is noticed.',
  },
  least_cost: {
    title: 'Least cost',
    explanation:
      'Each payment goes first to the cheapest service (by its fee schedule) among those whose recent success rate is close to the best. A service without a fee schedule comes after those with one.',
  },
};

export type ParamKey = 'min_samples' | 'window_minutes' | 'exploration_percent' | 'cost_margin_percent';

export interface StrategyParam {
  key: ParamKey;
  label: string;
  hint: string;
  min: number;
  max: number;
  /** false: a decimal (cost_margin_percent: 0.5 is half a percentage point). */
  integer: boolean;
  strategies: readonly Strategy[];
}

/** The parameters and the API's limits (outcome schema of src/modules/flows/flows.schemas.ts). */
export const STRATEGY_PARAMS: readonly StrategyParam[] = [
  {
    key: 'min_samples',
    label: 'Payments needed before a rate counts',
    hint: 'Recent payments a service needs before its success rate is trusted (1 to 100,000; default 20).',
    min: 1,
    max: 100_000,
    integer: true,
    strategies: ['success_rate', 'least_cost'],
  },
  {
    key: 'window_minutes',
    label: 'Counted over the last (minutes)',
    hint: 'How far back success rates are counted (1 to 1,440 minutes, one day; default 60).',
    min: 1,
    max: 1440,
    integer: true,
    strategies: ['success_rate', 'least_cost'],
  },
  {
    key: 'exploration_percent',
    label: 'Share of payments that explore (%)',
    hint: 'Payments sent to a service that might be better, to keep measuring it (0 to 50 %; default 10).',
    min: 0,
    max: 50,
    integer: true,
    strategies: ['success_rate'],
  },
  {
    key: 'cost_margin_percent',
    label: 'Success-rate margin (percentage points)',
    hint: 'How far below the best success rate a cheaper service may be and still go first (0 to 100 points; default 0.5).',
    min: 0,
    max: 100,
    integer: false,
    strategies: ['least_cost'],
  },
];

export interface StrategyDraft {
  strategy: Strategy;
  min_samples: string;
  window_minutes: string;
  exploration_percent: string;
  cost_margin_percent: string;
  breaker: boolean;
  step_up_on_soft_decline: boolean;
}

/** The API's defaults (docs/routing.md, "Outcomes"). */
export const DEFAULT_STRATEGY: StrategyDraft = {
  strategy: 'static',
  min_samples: '20',
  window_minutes: '60',
  exploration_percent: '10',
  cost_margin_percent: '0.5',
  breaker: true,
  step_up_on_soft_decline: false,
};

export const paramsOf = (strategy: Strategy): StrategyParam[] =>
  STRATEGY_PARAMS.filter((p) => p.strategies.includes(strategy));

const figure = (n: number) => n.toLocaleString('en-GB');

/** A parameter's value, or what is wrong with it in words a person can act on; null: empty (the default applies). */
export function paramValue(param: StrategyParam, text: string): { value: number } | { error: string } | null {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return null;
  const value = Number(trimmed);
  const range = `from ${figure(param.min)} to ${figure(param.max)}`;
  if (!Number.isFinite(value) || (param.integer && !Number.isInteger(value)))
    return {
      error: param.integer
        ? `Enter a whole number ${range} (or leave it empty for the default).`
        : `Enter a number ${range}, such as 0.5 (or leave it empty for the default).`,
    };
  if (value < param.min || value > param.max) return { error: `${figure(value)} is out of range: enter ${range}.` };
  return { value };
}

/**
 * The outcome fields of a draft: the strategy, the parameters of that strategy only (the API
 * refuses the others), the circuit breaker switch, and step-up where it can apply (card payments).
 */
export function strategyFields(
  draft: StrategyDraft,
  options: { stepUp: boolean },
): { fields: Record<string, unknown> } | { errors: Partial<Record<ParamKey, string>> } {
  const fields: Record<string, unknown> = { strategy: draft.strategy };
  const errors: Partial<Record<ParamKey, string>> = {};
  for (const param of paramsOf(draft.strategy)) {
    const parsed = paramValue(param, draft[param.key]);
    if (parsed && 'error' in parsed) errors[param.key] = parsed.error;
    else if (parsed) fields[param.key] = parsed.value;
  }
  if (Object.keys(errors).length > 0) return { errors };
  fields.breaker = draft.breaker;
  if (options.stepUp) fields.step_up_on_soft_decline = draft.step_up_on_soft_decline;
  return { fields };
}

/** The strategy a stored outcome uses (the API's default when it names none). */
export function strategyOf(outcome: Record<string, unknown>): Strategy {
  const value = outcome.strategy;
  return (STRATEGIES as readonly unknown[]).includes(value) ? (value as Strategy) : 'static';
}

/** The strategy's fields of a stored outcome in words; each key read is removed from `rest`. */
export function describeStrategy(rest: Record<string, unknown>): string[] {
  const take = (key: string) => {
    const value = rest[key];
    delete rest[key];
    return value;
  };
  const parts: string[] = [];
  const strategy = take('strategy');
  if (strategy !== undefined) parts.push(`strategy: ${STRATEGY_TEXT[strategyOf({ strategy })].title.toLowerCase()}`);
  const samples = take('min_samples');
  if (samples !== undefined) parts.push(`rates trusted after ${samples} payments`);
  const window = take('window_minutes');
  if (window !== undefined) parts.push(`counted over ${window} min`);
  const exploration = take('exploration_percent');
  if (exploration !== undefined) parts.push(`${exploration} % exploring`);
  const margin = take('cost_margin_percent');
  if (margin !== undefined) parts.push(`margin ${margin} points`);
  const breaker = take('breaker');
  if (breaker !== undefined)
    parts.push(breaker === false ? 'circuit breakers ignored' : 'services with an open circuit skipped');
  const stepUp = take('step_up_on_soft_decline');
  if (stepUp === true) parts.push('retried with 3-D Secure when the issuer asks for authentication');
  return parts;
}
