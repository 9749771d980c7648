import type { FeeEntryJson } from '../../db/schema.ts';

/**
 * A payment service's fee schedule and the expected cost of one transaction at it (least-cost
 * routing, docs/routing.md). Pure and exact: money stays in integers (bigint), never floats.
 *
 * A percent is a decimal string with at most 4 decimals ("2.9" = 2.9 %), held as millionths of
 * the amount (2.9 % = 29 000 / 1 000 000). The expected cost is kept in millionths of a minor
 * unit, so `amount × percent + fixed` is exact and costs compare exactly.
 */

export type FeeEntry = FeeEntryJson;

/** What an entry is matched against: the transaction's facts (null: the transaction does not know it). */
export interface FeeFacts {
  scheme: string | null;
  cardType: string | null;
  currency: string;
  country: string | null;
}

/** Millionths per whole (100 %). */
export const MICROS = 1_000_000n;

/** The match fields, most decisive first: between entries setting as many fields, the earlier field wins. */
const MATCH_FIELDS = ['scheme', 'card_type', 'country', 'currency'] as const;
type MatchField = (typeof MATCH_FIELDS)[number];

const factOf = (facts: FeeFacts, field: MatchField): string | null =>
  field === 'scheme'
    ? facts.scheme
    : field === 'card_type'
      ? facts.cardType
      : field === 'country'
        ? facts.country
        : facts.currency;

/** Every field the entry sets equals the transaction's fact (a fact the transaction lacks matches only "any"). */
export function entryMatches(entry: FeeEntry, facts: FeeFacts): boolean {
  return MATCH_FIELDS.every((field) => entry[field] === null || entry[field] === factOf(facts, field));
}

/**
 * How specific an entry is: the number of fields it sets first, then which (scheme, card type,
 * country, currency, in that order). Two entries setting the same fields are refused on write,
 * so among the entries that match a transaction exactly one is the most specific.
 */
export function specificity(entry: FeeEntry): number {
  let count = 0;
  let mask = 0;
  for (const [i, field] of MATCH_FIELDS.entries()) {
    if (entry[field] !== null) {
      count++;
      mask |= 1 << (MATCH_FIELDS.length - 1 - i);
    }
  }
  return count * 16 + mask;
}

/** The index of the most specific entry matching the transaction, or null. */
export function feeEntryFor(entries: readonly FeeEntry[], facts: FeeFacts): number | null {
  let best: number | null = null;
  for (const [i, entry] of entries.entries()) {
    if (!entryMatches(entry, facts)) continue;
    if (best === null || specificity(entry) > specificity(entries[best]!)) best = i;
  }
  return best;
}

/** "2.9" → 29 000 millionths. The string is schema-checked: digits, at most one dot, at most 4 decimals. */
export function percentMicros(percent: string): bigint {
  const [whole = '0', fraction = ''] = percent.split('.');
  return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0') || '0');
}

export type CostUnknown = 'no_fee_schedule' | 'no_matching_entry' | 'fixed_fee_in_another_currency';

export type ExpectedCost =
  | { known: true; entryIndex: number; micros: bigint; currency: string }
  | { known: false; entryIndex: number | null; reason: CostUnknown };

/**
 * The expected fee of `amount` (minor units of `facts.currency`) at a service with `entries`:
 * `amount × percent + fixed`, exact, in millionths of a minor unit. No conversion: a fixed fee in
 * another currency than the transaction's makes the cost unknown (ignoring it would make the
 * service look cheaper than it is).
 */
export function expectedCost(entries: readonly FeeEntry[] | null, facts: FeeFacts, amount: number): ExpectedCost {
  if (!entries || entries.length === 0) return { known: false, entryIndex: null, reason: 'no_fee_schedule' };
  const index = feeEntryFor(entries, facts);
  if (index === null) return { known: false, entryIndex: null, reason: 'no_matching_entry' };
  const entry = entries[index]!;
  const fixed = entry.fixed_fee;
  if (fixed && fixed.amount > 0 && fixed.currency !== facts.currency)
    return { known: false, entryIndex: index, reason: 'fixed_fee_in_another_currency' };
  const micros = BigInt(amount) * percentMicros(entry.percent) + BigInt(fixed?.amount ?? 0) * MICROS;
  return { known: true, entryIndex: index, micros, currency: facts.currency };
}

/** Whole minor units, half up (costs are never negative). */
export const roundedMinor = (micros: bigint): number => Number((micros + MICROS / 2n) / MICROS);

/** Exact minor units as a decimal string: 29 250 000 → "29.25". */
export function exactMinor(micros: bigint): string {
  const whole = micros / MICROS;
  let fraction = (micros % MICROS).toString().padStart(6, '0');
  while (fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
