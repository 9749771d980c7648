import { describe, expect, it } from 'vitest';
import { splitsBody, splitsOf } from './adyen.splits.ts';

const seller = (value: number) => ({ type: 'MarketPlace', account: 'A1', amount: { value }, reference: 'r1' });

describe('Adyen splits', () => {
  it('none without options or without items for the operation', () => {
    expect(splitsBody(null, 'authorization', 100, 'EUR')).toEqual({});
    expect(splitsBody({ splits: { capture: [seller(100)] } }, 'refund', 100, 'EUR')).toEqual({});
  });

  it('classic marketplace items add up to the amount exactly', () => {
    const ok = { splits: { authorization: [seller(90), { type: 'Commission', amount: { value: 10 } }] } };
    expect(splitsOf(ok, 'authorization', 100, 'EUR')).toHaveLength(2);
    expect(() => splitsOf(ok, 'authorization', 101, 'EUR')).toThrow('add up to the amount (101 EUR), not 100');
    const noAmount = { splits: { capture: [seller(100), { type: 'PaymentFee', account: 'A1' }] } };
    expect(() => splitsOf(noAmount, 'capture', 100, 'EUR')).toThrow('every item needs an amount');
  });

  it('balance platform items may leave a remainder but not exceed the amount', () => {
    const items = (value: number) => ({
      splits: {
        authorization: [
          { type: 'BalanceAccount', account: 'BA1', reference: 'r', amount: { value } },
          { type: 'PaymentFee', account: 'BA1' },
        ],
      },
    });
    expect(splitsOf(items(80), 'authorization', 100, 'EUR')).toHaveLength(2);
    expect(() => splitsOf(items(101), 'authorization', 100, 'EUR')).toThrow('exceed');
  });

  it.each([
    [{ type: 'Nope', amount: { value: 1 } }, "Adyen's split types"],
    [{ type: 'MarketPlace', amount: { value: 100 }, reference: 'r' }, 'needs an account and a reference'],
    [{ type: 'BalanceAccount', account: 'BA1', amount: { value: 100 } }, 'needs an account and a reference'],
    [{ type: 'VAT' }, 'needs an amount'],
    [{ type: 'Commission', amount: { value: 1.5 } }, 'non-negative integer'],
    [{ type: 'Commission', amount: { value: 1, currency: 'EURO' } }, 'ISO 4217'],
    ['x', 'must be an object'],
  ])('refuses %j', (item, why) => {
    expect(() => splitsOf({ splits: { refund: [item] } }, 'refund', 100, 'EUR')).toThrow(why);
  });

  it('refuses an empty list and a splits value that is not an object', () => {
    expect(() => splitsOf({ splits: { refund: [] } }, 'refund', 100, 'EUR')).toThrow('1 to 100');
    expect(() => splitsOf({ splits: [] }, 'refund', 100, 'EUR')).toThrow('must be an object');
  });

  it("converts amounts to Adyen's units and fills in the currency", () => {
    const body = splitsBody({ splits: { authorization: [seller(1000)] } }, 'authorization', 1000, 'ISK');
    expect(body.splits?.[0]).toEqual({
      type: 'MarketPlace',
      account: 'A1',
      amount: { value: 100000, currency: 'ISK' },
      reference: 'r1',
    });
  });
});
