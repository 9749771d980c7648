import { describeStrategy, strategyOf } from './routing-strategy.ts';

/**
 * The condition builder's model (docs/routing.md): the fields a simple rule can test, with the
 * operators each allows, and how a typed value becomes the API's condition value.
 */

export const FLOWS = ['checkout', 'card-transaction', 'non-card-transaction', 'redirect-transaction'] as const;
export const ACTIONS = ['route-transaction', 'decline-early', 'skip-3ds', 'select-payment-options'] as const;
export type Flow = (typeof FLOWS)[number];
export type FlowAction = (typeof ACTIONS)[number];

/** The actions of each flow (the API refuses the others). */
export const FLOW_ACTIONS: Record<Flow, readonly FlowAction[]> = {
  checkout: ['select-payment-options'],
  'card-transaction': ['decline-early', 'skip-3ds', 'route-transaction'],
  'non-card-transaction': ['decline-early', 'route-transaction'],
  'redirect-transaction': ['decline-early', 'route-transaction'],
};

export type Operator = 'equals' | 'one_of' | 'not_one_of' | 'prefix';

export interface BuilderField {
  field: string;
  label: string;
  operators: readonly Operator[];
  /** Codes are upper case (currencies, countries); methods and schemes lower case. */
  upper?: boolean;
  boolean?: boolean;
  cardOnly?: boolean;
}

const LISTS: readonly Operator[] = ['equals', 'one_of', 'not_one_of'];

export const BUILDER_FIELDS: readonly BuilderField[] = [
  { field: 'currency', label: 'Currency', operators: LISTS, upper: true },
  { field: 'country', label: 'Country', operators: LISTS, upper: true },
  { field: 'payment_method', label: 'Payment method', operators: LISTS },
  { field: 'card_scheme', label: 'Card scheme', operators: LISTS, cardOnly: true },
  { field: 'bin', label: 'Card BIN', operators: [...LISTS, 'prefix'], cardOnly: true },
  { field: 'issuer_country', label: 'Issuer country', operators: LISTS, upper: true, cardOnly: true },
  { field: 'buyer_external_identifier', label: 'Buyer external identifier', operators: [...LISTS, 'prefix'] },
  { field: 'merchant_initiated', label: 'Merchant-initiated', operators: ['equals'], boolean: true },
];

export interface ConditionDraft {
  field: string;
  operator: Operator;
  value: string;
}

export interface Condition {
  field: string;
  operator: Operator;
  value: string | string[] | boolean;
}

const LOWER = new Set(['payment_method', 'card_scheme']);

/** A draft as the API's condition: lists split on commas, codes cased, booleans as booleans. */
export function toCondition(draft: ConditionDraft): Condition {
  const spec = BUILDER_FIELDS.find((f) => f.field === draft.field);
  const clean = (s: string) =>
    spec?.upper ? s.trim().toUpperCase() : LOWER.has(draft.field) ? s.trim().toLowerCase() : s.trim();
  if (spec?.boolean) return { field: draft.field, operator: 'equals', value: draft.value === 'true' };
  if (draft.operator === 'one_of' || draft.operator === 'not_one_of') {
    return { field: draft.field, operator: draft.operator, value: draft.value.split(',').map(clean).filter(Boolean) };
  }
  return { field: draft.field, operator: draft.operator, value: clean(draft.value) };
}

/** A condition in words: "currency one of EUR, USD". */
export function describeCondition(c: { field: string; operator: string; key?: string | null; value: unknown }): string {
  const value = Array.isArray(c.value)
    ? c.value.join(', ')
    : typeof c.value === 'object' && c.value !== null
      ? JSON.stringify(c.value)
      : String(c.value);
  return `${c.field.replace(/_/g, ' ')}${c.key ? ` [${c.key}]` : ''} ${c.operator.replace(/_/g, ' ')} ${value}`;
}

/** The rule ids after moving one up (-1) or down (+1); the same order when it cannot move. */
export function moved(ids: readonly string[], id: string, by: -1 | 1): string[] {
  const order = [...ids];
  const from = order.indexOf(id);
  const to = from + by;
  if (from < 0 || to < 0 || to >= order.length) return order;
  [order[from], order[to]] = [order[to]!, order[from]!];
  return order;
}

/** The rule ids after dragging one onto another: it takes the other's place; the same order for an unknown id. */
export function dropped(ids: readonly string[], dragged: string, target: string): string[] {
  const order = [...ids];
  const from = order.indexOf(dragged);
  const to = order.indexOf(target);
  if (from < 0 || to < 0 || from === to) return order;
  order.splice(from, 1);
  order.splice(to, 0, dragged);
  return order;
}

/** What the dry run says of one rule: it matches, or why not (disabled, its failed conditions, an earlier rule). */
export function ruleVerdict(rule: {
  matched: boolean;
  not_matched_because: string | null;
  failed_conditions: ReadonlyArray<{ reason: string }>;
}): string {
  if (rule.matched) return 'matches';
  const why = (rule.not_matched_because ?? 'unknown').replace(/_/g, ' ');
  const reasons = rule.failed_conditions.map((c) => c.reason).join('; ');
  return `does not match (${why}${reasons ? `: ${reasons}` : ''})`;
}

/**
 * What a rule does, in words (docs/routing.md, "Outcomes"): the payment services by name, in the
 * order they are tried, with their weights and limits; the decline reason; the options offered.
 * A field this does not know is shown as it is, never hidden.
 */
export function describeOutcome(
  action: FlowAction,
  outcome: Record<string, unknown>,
  serviceNames: ReadonlyMap<string, string>,
): string {
  const rest = { ...outcome };
  const parts: string[] = [];
  const take = <T>(key: string): T | undefined => {
    const value = rest[key] as T | undefined;
    delete rest[key];
    return value;
  };
  if (action === 'route-transaction') {
    const ids = take<string[]>('payment_service_ids') ?? [];
    const weights = take<number[]>('weights');
    const names = ids.map((id, i) => {
      const name = serviceNames.get(id) ?? `service ${id.slice(0, 8)}…`;
      return weights ? `${name} (${weights[i]} %)` : name;
    });
    const smart = strategyOf(rest) !== 'static';
    parts.push(
      weights
        ? `split between ${names.join(', ')}`
        : smart
          ? `choose among ${names.join(', ')}`
          : `route to ${names.join(', then ')}`,
    );
    const attempts = take<number>('max_attempts');
    if (attempts !== undefined) parts.push(`at most ${attempts} attempt${attempts === 1 ? '' : 's'}`);
    const budget = take<number>('time_budget_seconds');
    if (budget !== undefined) parts.push(`within ${budget} s`);
    const retry = take<string[]>('retry_on_declines');
    if (retry) parts.push(`retry on ${retry.length > 0 ? retry.join(', ') : 'no decline'}`);
    parts.push(...describeStrategy(rest));
  } else if (action === 'decline-early') {
    const reason = take<string>('reason');
    parts.push(reason ? `decline early: ${reason}` : 'decline early');
  } else if (action === 'skip-3ds') {
    parts.push('skip 3-D Secure');
  } else {
    const options = take<string[]>('payment_options') ?? [];
    parts.push(`offer ${options.join(', ') || 'nothing'}`);
  }
  for (const [key, value] of Object.entries(rest)) parts.push(`${key}: ${JSON.stringify(value)}`);
  const text = parts.join('; ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
