import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { fromCheckoutAmount, toCheckoutAmount } from './checkout.amounts.ts';

describe('happy', () => {
  it("writes our minor units in Checkout.com's units per currency", () => {
    expect(toCheckoutAmount(1050, 'USD')).toBe(1050);
    expect(toCheckoutAmount(500, 'JPY')).toBe(500);
    // KWD: three decimals in ISO and at Checkout.com, the last digit 0.
    expect(toCheckoutAmount(1230, 'KWD')).toBe(1230);
    // CLP: no decimals in ISO, hundredths at Checkout.com.
    expect(toCheckoutAmount(500, 'CLP')).toBe(50000);
  });

  it("reads Checkout.com's units back into our minor units", () => {
    expect(fromCheckoutAmount(1050, 'USD')).toBe(1050);
    expect(fromCheckoutAmount(50000, 'CLP')).toBe(500);
    expect(fromCheckoutAmount(1230, 'KWD')).toBe(1230);
  });
});

describe('errors', () => {
  it.each([
    [1231, 'KWD', 'last digit'],
    [0, 'USD', 'positive'],
    [1_000_000_000, 'USD', 'nine digits'],
    [10.5, 'USD', 'positive integer'],
  ])('refuses %s %s, which it cannot take exactly (%s)', (amount, currency, why) => {
    let error: unknown;
    try {
      toCheckoutAmount(amount, currency);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).kind).toBe('invalid_request');
    expect((error as ConnectorError).message).toContain(why);
  });

  it('reads an amount that is not a whole number of our units as unknown (null)', () => {
    expect(fromCheckoutAmount(1.5, 'USD')).toBeNull();
    expect(fromCheckoutAmount('100', 'USD')).toBeNull();
    expect(fromCheckoutAmount(50050, 'CLP')).toBeNull();
  });
});
