import { describe, expect, it } from 'vitest';
import type { FlowConditionJson } from '../../db/schema-flow-rules.ts';
import { conditionMiss, conditionProblem, type FlowFacts } from './rule-conditions.ts';

const facts: FlowFacts = {
  amount: 12_000,
  currency: 'EUR',
  country: 'DE',
  method: 'card',
  scheme: 'visa',
  bin: '41111111',
  issuerCountry: null,
  paymentSource: 'ecommerce',
  merchantInitiated: false,
  isSubsequentPayment: false,
  metadata: { tier: 'gold' },
  buyerExternalIdentifier: 'cust-42',
  antiFraudDecision: 'accept',
  threeDSecureStatus: null,
};
const c = (
  field: string,
  operator: FlowConditionJson['operator'],
  value: unknown,
  key?: string,
): FlowConditionJson => ({ field, operator, value, ...(key ? { key } : {}) });
const holds = (condition: FlowConditionJson, f: Partial<FlowFacts> = {}) =>
  conditionMiss(condition, { ...facts, ...f }) === null;

describe('conditionMiss', () => {
  it('matches amounts by range in the range currency only', () => {
    expect(holds(c('amount', 'range', { currency: 'EUR', min: 10_000 }))).toBe(true);
    expect(holds(c('amount', 'range', { currency: 'EUR', max: 11_999 }))).toBe(false);
    expect(conditionMiss(c('amount', 'range', { currency: 'USD', min: 0 }), facts)).toBe(
      'the amount range is in USD, the transaction in EUR',
    );
  });

  it('matches lists, prefixes and BINs by their first digits', () => {
    expect(holds(c('currency', 'one_of', ['USD', 'EUR']))).toBe(true);
    expect(holds(c('country', 'not_one_of', ['DE']))).toBe(false);
    expect(holds(c('bin', 'equals', '411111'))).toBe(true);
    expect(holds(c('bin', 'equals', '41111112'))).toBe(false);
    expect(holds(c('bin', 'prefix', '4'))).toBe(true);
    expect(holds(c('bin', 'range', { min: '400000', max: '499999' }))).toBe(true);
    expect(holds(c('bin', 'range', { min: '510000', max: '559999' }))).toBe(false);
    expect(holds(c('buyer_external_identifier', 'prefix', 'cust-'))).toBe(true);
    expect(holds(c('merchant_initiated', 'equals', false))).toBe(true);
    expect(holds(c('metadata', 'equals', 'gold', 'tier'))).toBe(true);
    expect(holds(c('metadata', 'equals', 'gold', 'missing'))).toBe(false);
  });

  it('treats an unknown fact as matching not_one_of only', () => {
    expect(holds(c('issuer_country', 'one_of', ['US']))).toBe(false);
    expect(holds(c('issuer_country', 'not_one_of', ['US']))).toBe(true);
    expect(holds(c('country', 'equals', 'DE'), { country: null })).toBe(false);
    expect(conditionMiss(c('issuer_country', 'equals', 'US'), facts)).toBe(
      'issuer_country is not known for this transaction',
    );
  });
});

describe('conditionProblem', () => {
  it('accepts what each field takes and says what is wrong otherwise', () => {
    expect(conditionProblem(c('card_scheme', 'one_of', ['visa', 'mastercard']), 'card-transaction')).toBeNull();
    expect(conditionProblem(c('card_scheme', 'equals', 'visa'), 'redirect-transaction')?.message).toMatch(
      /redirect-transaction flow does not know card_scheme/,
    );
    expect(conditionProblem(c('card_scheme', 'equals', 'vise'), 'card-transaction')?.message).toMatch(
      /"vise" is not a card scheme/,
    );
    expect(conditionProblem(c('one', 'equals', 'x'), 'card-transaction')?.pointer).toBe('/field');
    expect(conditionProblem(c('country', 'one_of', []), 'card-transaction')).toEqual({
      pointer: '/value',
      message: 'one_of takes a list of 1 to 100 values',
    });
    expect(conditionProblem(c('amount', 'range', { currency: 'EUR', min: 5, max: 4 }), 'checkout')?.message).toBe(
      'min must not be greater than max',
    );
    expect(conditionProblem(c('merchant_initiated', 'equals', 'yes'), 'card-transaction')?.message).toMatch(
      /true or false/,
    );
    expect(conditionProblem({ ...c('country', 'equals', 'DE'), key: 'x' }, 'card-transaction')?.pointer).toBe('/key');
  });
});
