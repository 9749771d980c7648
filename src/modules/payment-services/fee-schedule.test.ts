import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  exactMinor,
  expectedCost,
  feeEntryFor,
  percentMicros,
  roundedMinor,
  specificity,
  type FeeEntry,
  type FeeFacts,
} from './fee-schedule.ts';

const entry = (over: Partial<FeeEntry>): FeeEntry => ({
  scheme: null,
  card_type: null,
  currency: null,
  country: null,
  percent: '0',
  fixed_fee: null,
  ...over,
});
const visaCreditUS: FeeFacts = { scheme: 'visa', cardType: 'credit', currency: 'USD', country: 'US' };

describe('percentMicros and the exact cost', () => {
  it('reads a decimal percent exactly', () => {
    expect(percentMicros('2.9')).toBe(29_000n);
    expect(percentMicros('0')).toBe(0n);
    expect(percentMicros('100')).toBe(1_000_000n);
    expect(percentMicros('0.0001')).toBe(1n);
    expect(percentMicros('1.375')).toBe(13_750n);
  });

  it('computes amount × percent + fixed without rounding, and rounds half up only for display', () => {
    const cost = expectedCost(
      [entry({ percent: '2.9', fixed_fee: { amount: 30, currency: 'USD' } })],
      visaCreditUS,
      1_005,
    );
    // 1005 × 2.9 % = 29.145, + 30 = 59.145 minor units.
    expect(cost).toEqual({ known: true, entryIndex: 0, micros: 59_145_000n, currency: 'USD' });
    if (!cost.known) throw new Error('known');
    expect(exactMinor(cost.micros)).toBe('59.145');
    expect(roundedMinor(cost.micros)).toBe(59);
    expect(roundedMinor(500_000n)).toBe(1);
    expect(roundedMinor(499_999n)).toBe(0);
    expect(exactMinor(25_000_000n)).toBe('25');
    expect(exactMinor(1n)).toBe('0.000001');
  });

  it('is exact for the largest amounts (no float rounding)', () => {
    const cost = expectedCost([entry({ percent: '3.3333' })], visaCreditUS, 99_999_999);
    expect(cost.known && cost.micros).toBe(99_999_999n * 33_333n);
    expect(cost.known && exactMinor(cost.micros)).toBe('3333299.966667');
  });

  it('property: the cost is linear in the amount and adds the fixed fee', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (amount, micros, fixed) => {
          const percent = `${Math.floor(micros / 10_000)}.${String(micros % 10_000).padStart(4, '0')}`;
          const cost = expectedCost(
            [entry({ percent, fixed_fee: { amount: fixed, currency: 'USD' } })],
            visaCreditUS,
            amount,
          );
          expect(cost.known && cost.micros).toBe(BigInt(amount) * BigInt(micros) + BigInt(fixed) * 1_000_000n);
        },
      ),
    );
  });
});

describe('the most specific entry', () => {
  const entries = [
    entry({ percent: '3' }),
    entry({ scheme: 'visa', percent: '2.5' }),
    entry({ scheme: 'visa', card_type: 'debit', percent: '1' }),
    entry({ currency: 'USD', percent: '2.8' }),
    entry({ scheme: 'visa', currency: 'USD', percent: '2.2' }),
    entry({ scheme: 'visa', card_type: 'credit', country: 'US', currency: 'USD', percent: '2' }),
    entry({ scheme: 'mastercard', percent: '1.5' }),
  ];

  it('applies the entry setting the most fields among those that match', () => {
    expect(feeEntryFor(entries, visaCreditUS)).toBe(5);
    expect(feeEntryFor(entries, { ...visaCreditUS, country: 'GB' })).toBe(4);
    // scheme + card type beats scheme + currency (as many fields; card type comes before currency).
    expect(feeEntryFor(entries, { ...visaCreditUS, cardType: 'debit' })).toBe(2);
    expect(feeEntryFor(entries, { ...visaCreditUS, cardType: 'prepaid' })).toBe(4);
    expect(feeEntryFor(entries, { ...visaCreditUS, cardType: 'debit', currency: 'EUR' })).toBe(2);
    expect(feeEntryFor(entries, { ...visaCreditUS, currency: 'EUR' })).toBe(1);
    expect(feeEntryFor(entries, { scheme: 'amex', cardType: null, currency: 'EUR', country: null })).toBe(0);
    expect(feeEntryFor(entries, { scheme: null, cardType: null, currency: 'USD', country: null })).toBe(3);
  });

  it('between entries setting as many fields: scheme, then card type, then country, then currency', () => {
    const tie = [entry({ currency: 'USD' }), entry({ country: 'US' }), entry({ card_type: 'credit' })];
    expect(feeEntryFor(tie, visaCreditUS)).toBe(2);
    expect(feeEntryFor([...tie, entry({ scheme: 'visa' })], visaCreditUS)).toBe(3);
    expect(specificity(entry({ scheme: 'visa' }))).toBeLessThan(specificity(entry({ country: 'US', currency: 'USD' })));
  });

  it('a fact the transaction lacks matches only "any"', () => {
    expect(feeEntryFor([entry({ card_type: 'credit' })], { ...visaCreditUS, cardType: null })).toBeNull();
  });

  it('property: the chosen entry matches and no matching entry is more specific', () => {
    const arbEntry = fc.record({
      scheme: fc.constantFrom(null, 'visa', 'mastercard'),
      card_type: fc.constantFrom(null, 'credit', 'debit'),
      currency: fc.constantFrom(null, 'USD', 'EUR'),
      country: fc.constantFrom(null, 'US', 'GB'),
      percent: fc.constant('1'),
      fixed_fee: fc.constant(null),
    }) as fc.Arbitrary<FeeEntry>;
    const arbFacts = fc.record({
      scheme: fc.constantFrom(null, 'visa', 'mastercard'),
      cardType: fc.constantFrom(null, 'credit', 'debit'),
      currency: fc.constantFrom('USD', 'EUR'),
      country: fc.constantFrom(null, 'US', 'GB'),
    });
    fc.assert(
      fc.property(fc.array(arbEntry, { maxLength: 12 }), arbFacts, (list, facts) => {
        const matching = list.filter(
          (e) =>
            (e.scheme === null || e.scheme === facts.scheme) &&
            (e.card_type === null || e.card_type === facts.cardType) &&
            (e.currency === null || e.currency === facts.currency) &&
            (e.country === null || e.country === facts.country),
        );
        const chosen = feeEntryFor(list, facts);
        if (matching.length === 0) {
          expect(chosen).toBeNull();
          return;
        }
        expect(matching).toContain(list[chosen!]);
        expect(specificity(list[chosen!]!)).toBe(Math.max(...matching.map(specificity)));
      }),
    );
  });
});

describe('unknown costs', () => {
  it('no schedule, no matching entry, a fixed fee in another currency', () => {
    expect(expectedCost(null, visaCreditUS, 100)).toEqual({
      known: false,
      entryIndex: null,
      reason: 'no_fee_schedule',
    });
    expect(expectedCost([], visaCreditUS, 100)).toMatchObject({ reason: 'no_fee_schedule' });
    expect(expectedCost([entry({ currency: 'EUR' })], visaCreditUS, 100)).toMatchObject({
      reason: 'no_matching_entry',
    });
    expect(
      expectedCost([entry({ percent: '1', fixed_fee: { amount: 25, currency: 'EUR' } })], visaCreditUS, 100),
    ).toEqual({ known: false, entryIndex: 0, reason: 'fixed_fee_in_another_currency' });
    // A fixed fee of 0 in another currency costs nothing in any currency.
    expect(
      expectedCost([entry({ percent: '1', fixed_fee: { amount: 0, currency: 'EUR' } })], visaCreditUS, 100),
    ).toMatchObject({ known: true, micros: 1_000_000n });
  });
});
