import { describe, expect, it } from 'vitest';
import { isCountry } from './countries.ts';
import { CURRENCY_EXPONENTS, currencyExponent, formatAmount, isCurrency } from './currencies.ts';

describe('happy', () => {
  it('knows the exponents of common and unusual currencies', () => {
    expect(currencyExponent('USD')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('CLF')).toBe(4);
    expect(Object.keys(CURRENCY_EXPONENTS).every((code) => /^[A-Z]{3}$/.test(code))).toBe(true);
  });

  it('formats minor units', () => {
    expect(formatAmount(1050, 'USD')).toBe('10.50 USD');
    expect(formatAmount(5, 'EUR')).toBe('0.05 EUR');
    expect(formatAmount(1000, 'JPY')).toBe('1000 JPY');
    expect(formatAmount(1, 'BHD')).toBe('0.001 BHD');
  });

  it('checks country codes', () => {
    expect(isCountry('GB')).toBe(true);
    expect(isCountry('UK')).toBe(false);
  });
});

describe('errors', () => {
  it('refuses unknown codes', () => {
    expect(isCurrency('ABC')).toBe(false);
    expect(isCurrency('usd')).toBe(false);
    expect(() => currencyExponent('ZZZ')).toThrow('unknown currency ZZZ');
  });
});
