import { describe, expect, it } from 'vitest';
import { currencyExponent } from '../../lib/currencies.ts';
import { fromBraintreeAmount, toBraintreeAmount } from './braintree.amounts.ts';
import { BRAINTREE_CARD_DEFINITION } from './braintree.definition.ts';

describe('happy', () => {
  it('writes every currency the definition lists as a decimal string, and reads it back', () => {
    for (const currency of BRAINTREE_CARD_DEFINITION.supportedCurrencies) {
      const exponent = currencyExponent(currency);
      const text = toBraintreeAmount(123456, currency);
      expect(text, currency).toBe(
        exponent === 0 ? '123456' : `${String(123456).slice(0, -exponent)}.${String(123456).slice(-exponent)}`,
      );
      expect(fromBraintreeAmount(text, currency), currency).toBe(123456);
    }
  });

  it('pads small amounts and handles zero- and three-decimal currencies', () => {
    expect(toBraintreeAmount(5, 'USD')).toBe('0.05');
    expect(toBraintreeAmount(1000, 'JPY')).toBe('1000');
    expect(toBraintreeAmount(1250, 'KWD')).toBe('1.250');
    expect(toBraintreeAmount(5, 'BHD')).toBe('0.005');
    expect(fromBraintreeAmount('10', 'USD')).toBe(1000);
    expect(fromBraintreeAmount('10.5', 'USD')).toBe(1050);
  });
});

describe('errors', () => {
  it('refuses what is not a plain decimal, or has more digits than the currency', () => {
    expect(fromBraintreeAmount('1e3', 'USD')).toBeNull();
    expect(fromBraintreeAmount('-1.00', 'USD')).toBeNull();
    expect(fromBraintreeAmount('1.005', 'USD')).toBeNull();
    expect(fromBraintreeAmount('1.500', 'USD')).toBe(150);
  });
});

describe('security', () => {
  it('never goes through floating point (large amounts stay exact)', () => {
    expect(toBraintreeAmount(9007199254740, 'USD')).toBe('90071992547.40');
    expect(fromBraintreeAmount('90071992547.40', 'USD')).toBe(9007199254740);
  });
});
