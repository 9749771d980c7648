import type { FlowConditionJson, FlowName } from '../../db/schema-flow-rules.ts';
import { isCurrency } from '../../lib/currencies.ts';
import {
  MAX_DISTINCT_CARDS_THRESHOLD,
  MAX_VELOCITY_WINDOW_MINUTES,
  VELOCITY_KEYS,
  VELOCITY_MEASURES,
  type VelocityKey,
  type VelocityMeasure,
} from '../velocity/velocity-window.ts';

/**
 * The `velocity` condition of flow rules (docs/risk.md, "Velocity limits"): how many attempts,
 * declines, distinct cards or how much amount one card, buyer, e-mail address or IP address had in
 * the last `window_minutes`, this transaction included, compared with a threshold. Pure: the counts
 * come with the facts (`FlowFacts.velocity`), read from memory before the rules run.
 */
export interface VelocityConditionValue {
  key: VelocityKey;
  measure: VelocityMeasure;
  window_minutes: number;
  threshold: number;
  /** `amount` only: the currency summed. */
  currency?: string | null;
}

/** The count of one condition's key and measure for the transaction; null when it has no such key. */
export type VelocityLookup = (value: VelocityConditionValue) => number | null;

export const VELOCITY_OPERATORS = ['greater_than', 'less_than'] as const;

const MAX_THRESHOLD: Record<VelocityMeasure, number> = {
  attempts: 100_000,
  declines: 100_000,
  distinct_cards: MAX_DISTINCT_CARDS_THRESHOLD,
  amount: 1_000_000_000_000,
};
const VALUE_FIELDS = new Set(['key', 'measure', 'window_minutes', 'threshold', 'currency']);

/** What is wrong with a velocity condition's value for this flow (pointer inside the condition), or null. */
export function velocityProblem(value: unknown, flow: FlowName): { pointer: string; message: string } | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return {
      pointer: '/value',
      message: 'A velocity condition is an object {key, measure, window_minutes, threshold, currency}',
    };
  const v = value as Record<string, unknown>;
  const extra = Object.keys(v).find((k) => !VALUE_FIELDS.has(k));
  if (extra) return { pointer: `/value/${extra}`, message: `velocity does not know ${extra}` };
  if (!(VELOCITY_KEYS as readonly unknown[]).includes(v.key))
    return { pointer: '/value/key', message: `velocity key must be one of ${VELOCITY_KEYS.join(', ')}` };
  if (v.key === 'card_fingerprint' && flow !== 'card-transaction')
    return {
      pointer: '/value/key',
      message: `The ${flow} flow has no card: card_fingerprint applies to card-transaction`,
    };
  if (!(VELOCITY_MEASURES as readonly unknown[]).includes(v.measure))
    return { pointer: '/value/measure', message: `velocity measure must be one of ${VELOCITY_MEASURES.join(', ')}` };
  const measure = v.measure as VelocityMeasure;
  const window = v.window_minutes;
  if (!Number.isInteger(window) || (window as number) < 1 || (window as number) > MAX_VELOCITY_WINDOW_MINUTES)
    return {
      pointer: '/value/window_minutes',
      message: `window_minutes must be a whole number of minutes from 1 to ${MAX_VELOCITY_WINDOW_MINUTES}`,
    };
  const threshold = v.threshold;
  if (!Number.isInteger(threshold) || (threshold as number) < 0 || (threshold as number) > MAX_THRESHOLD[measure])
    return {
      pointer: '/value/threshold',
      message: `threshold of ${measure} must be a whole number from 0 to ${MAX_THRESHOLD[measure]}`,
    };
  const currency = v.currency ?? null;
  if (measure === 'amount' && (typeof currency !== 'string' || !isCurrency(currency)))
    return { pointer: '/value/currency', message: 'An amount velocity needs the ISO 4217 currency it sums' };
  if (measure !== 'amount' && currency !== null)
    return { pointer: '/value/currency', message: 'currency applies to the amount measure only' };
  return null;
}

const describe = (v: VelocityConditionValue) =>
  `${v.measure}${v.measure === 'amount' ? ` (${v.currency})` : ''} of this ${v.key} in ${v.window_minutes} minutes`;

/** Why a velocity condition does not hold (with the counted value and the threshold), or null. */
export function velocityMiss(condition: FlowConditionJson, lookup: VelocityLookup | null | undefined): string | null {
  const v = condition.value as VelocityConditionValue;
  const counted = lookup ? lookup(v) : null;
  if (counted === null) return `velocity: ${v.key} is not known for this transaction`;
  if (condition.operator === 'greater_than')
    return counted > v.threshold ? null : `${describe(v)} is ${counted}, not greater than ${v.threshold}`;
  return counted < v.threshold ? null : `${describe(v)} is ${counted}, not less than ${v.threshold}`;
}

/** The counts a matched rule's velocity conditions saw, for the decision trace and the dry run. */
export interface VelocityTraceEntry {
  key: VelocityKey;
  measure: VelocityMeasure;
  window_minutes: number;
  currency: string | null;
  operator: (typeof VELOCITY_OPERATORS)[number];
  threshold: number;
  counted: number | null;
}

export function velocityTrace(
  conditions: readonly FlowConditionJson[],
  lookup: VelocityLookup | null | undefined,
): VelocityTraceEntry[] {
  return conditions
    .filter((c) => c.field === 'velocity')
    .map((c) => {
      const v = c.value as VelocityConditionValue;
      return {
        key: v.key,
        measure: v.measure,
        window_minutes: v.window_minutes,
        currency: v.currency ?? null,
        operator: c.operator as VelocityTraceEntry['operator'],
        threshold: v.threshold,
        counted: lookup ? lookup(v) : null,
      };
    });
}

/** What the rules of a merchant account need counted: the keys, and the longest window. */
export interface VelocityNeeds {
  keys: ReadonlySet<VelocityKey>;
  horizonMinutes: number;
}

/** The velocity needs of some rules' conditions; null when none uses velocity (nothing is counted). */
export function velocityNeedsOf(conditionLists: Iterable<readonly FlowConditionJson[]>): VelocityNeeds | null {
  const keys = new Set<VelocityKey>();
  let horizonMinutes = 0;
  for (const conditions of conditionLists)
    for (const c of conditions) {
      if (c.field !== 'velocity') continue;
      const v = c.value as VelocityConditionValue;
      keys.add(v.key);
      horizonMinutes = Math.max(horizonMinutes, v.window_minutes);
    }
  return keys.size > 0 ? { keys, horizonMinutes } : null;
}
