import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { fromPaypalValue, toPaypalMoney } from './paypal.amounts.ts';
import { PAYPAL_CURRENCIES } from './paypal.definition.ts';

describe('PayPal amounts', () => {
  it('writes two decimals for the usual currencies and none for JPY, HUF and TWD', () => {
    expect(toPaypalMoney(1050, 'USD')).toEqual({ currency_code: 'USD', value: '10.50' });
    expect(toPaypalMoney(5, 'EUR').value).toBe('0.05');
    expect(toPaypalMoney(0, 'GBP').value).toBe('0.00');
    expect(toPaypalMoney(1500, 'JPY').value).toBe('1500');
    expect(toPaypalMoney(150000, 'HUF').value).toBe('1500');
    expect(toPaypalMoney(9900, 'TWD').value).toBe('99');
  });

  it('refuses an amount PayPal cannot take exactly instead of rounding it', () => {
    expect(() => toPaypalMoney(150050, 'HUF')).toThrow(ConnectorError);
    expect(() => toPaypalMoney(1.5, 'USD')).toThrow(/exactly/);
  });

  it('reads every value it writes back to the same minor units, for every currency of the definition', () => {
    for (const currency of PAYPAL_CURRENCIES) {
      const amount = currency === 'HUF' || currency === 'TWD' ? 123400 : 1234;
      expect(fromPaypalValue(toPaypalMoney(amount, currency).value, currency), currency).toBe(amount);
    }
    expect(fromPaypalValue('10.5', 'USD')).toBe(1050);
    expect(fromPaypalValue('abc', 'USD')).toBeNull();
    expect(fromPaypalValue('1.234', 'USD')).toBeNull();
  });
});
