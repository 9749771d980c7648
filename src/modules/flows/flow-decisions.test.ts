import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainRules, firstMatch, serviceOrder, splitBucket, type FlowRule } from './flow-decisions.ts';
import type { FlowFacts } from './rule-conditions.ts';

const facts: FlowFacts = {
  amount: 500,
  currency: 'USD',
  country: 'US',
  method: 'card',
  scheme: 'visa',
  bin: '411111',
  issuerCountry: null,
  paymentSource: 'ecommerce',
  merchantInitiated: false,
  isSubsequentPayment: false,
  metadata: null,
  buyerExternalIdentifier: null,
  antiFraudDecision: null,
  threeDSecureStatus: null,
};
const rule = (id: string, position: number, conditions: FlowRule['conditions'], enabled = true): FlowRule => ({
  id,
  flow: 'card-transaction',
  action: 'route-transaction',
  position,
  enabled,
  conditions,
  outcome: {},
});

describe('firstMatch and explainRules', () => {
  const rules = [
    rule('eur', 1, [{ field: 'currency', operator: 'equals', value: 'EUR' }]),
    rule('off', 2, [], false),
    rule('usd', 3, [{ field: 'currency', operator: 'equals', value: 'USD' }]),
    rule('all', 4, []),
  ];

  it('picks the first enabled rule whose every condition holds', () => {
    expect(firstMatch(rules, facts)?.id).toBe('usd');
    expect(firstMatch(rules, { ...facts, currency: 'GBP' })?.id).toBe('all');
    expect(firstMatch([], facts)).toBeNull();
  });

  it('explains why every other rule did not decide', () => {
    const { winner, rules: explained } = explainRules(rules, facts);
    expect(winner?.id).toBe('usd');
    expect(explained.map((r) => [r.rule_id, r.matched, r.not_matched_because])).toEqual([
      ['eur', false, 'conditions'],
      ['off', false, 'disabled'],
      ['usd', true, null],
      ['all', false, 'earlier_rule_matched'],
    ]);
    expect(explained[0]!.failed_conditions).toEqual([
      { index: 0, field: 'currency', operator: 'equals', reason: 'currency is "USD", not "EUR"' },
    ]);
  });
});

describe('serviceOrder', () => {
  const outcome = {
    payment_service_ids: ['a', 'b', 'c'],
    weights: null,
    max_attempts: 3,
    time_budget_seconds: 30,
    retry_on_declines: [],
  };

  it('keeps the listed order without weights', () => {
    expect(serviceOrder(outcome, 'any')).toEqual(['a', 'b', 'c']);
  });

  it('draws the first service by weight, the same for the same key, the others following as fallbacks', () => {
    fc.assert(
      fc.property(fc.string(), (key) => {
        const order = serviceOrder({ ...outcome, weights: [70, 30, 0] }, key);
        expect(order).toEqual(serviceOrder({ ...outcome, weights: [70, 30, 0] }, key));
        expect([...order].sort()).toEqual(['a', 'b', 'c']);
        expect(order[0]).not.toBe('c');
        expect(order[0]).toBe(splitBucket(key) < 70 ? 'a' : 'b');
      }),
    );
  });

  it('splits close to the weights over many keys', () => {
    let a = 0;
    for (let i = 0; i < 10_000; i++) if (serviceOrder({ ...outcome, weights: [70, 30, 0] }, `txn-${i}`)[0] === 'a') a++;
    expect(a / 10_000).toBeGreaterThan(0.67);
    expect(a / 10_000).toBeLessThan(0.73);
  });
});
