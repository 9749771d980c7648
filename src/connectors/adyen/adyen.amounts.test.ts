import { describe, expect, it } from 'vitest';
import { currencyExponent } from '../../lib/currencies.ts';
import { adyenExponent, fromAdyenValue, toAdyenValue } from './adyen.amounts.ts';
import { ADYEN_CARD_DEFINITION } from './adyen.definition.ts';

describe('happy', () => {
  it('converts every currency the definition lists, both ways', () => {
    for (const currency of ADYEN_CARD_DEFINITION.supportedCurrencies) {
      const amount = 10 ** currencyExponent(currency) * 12; // 12 major units
      const value = toAdyenValue(amount, currency);
      expect(value, currency).toBe(12 * 10 ** adyenExponent(currency));
      expect(fromAdyenValue(value!, currency), currency).toBe(amount);
    }
  });

  it("uses Adyen's own exponents where they differ from ISO 4217", () => {
    expect(toAdyenValue(1500, 'CLP')).toBe(150000); // ISO 0, Adyen 2
    expect(toAdyenValue(1500, 'ISK')).toBe(150000); // ISO 0, Adyen 2
    expect(toAdyenValue(1500, 'CVE')).toBe(15); // ISO 2, Adyen 0
    expect(toAdyenValue(1000, 'JPY')).toBe(1000);
    expect(toAdyenValue(1250, 'KWD')).toBe(1250);
    expect(toAdyenValue(1999, 'EUR')).toBe(1999);
  });
});

describe('errors', () => {
  it('cannot send CVE cents, which Adyen does not count', () => {
    expect(toAdyenValue(1550, 'CVE')).toBeNull();
  });

  it('refuses an unknown currency', () => {
    expect(() => toAdyenValue(100, 'XXX')).toThrow(/unknown currency/);
  });
});

describe('security', () => {
  it('never rounds an amount (a payment is sent exactly or not at all)', () => {
    for (const amount of [1, 7, 99, 101]) expect(toAdyenValue(amount, 'CVE')).toBeNull();
  });
});
