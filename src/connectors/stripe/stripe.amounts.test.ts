import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { currencyExponent } from '../../lib/currencies.ts';
import { STRIPE_CARD_DEFINITION } from './stripe-card.definition.ts';
import { fromStripeAmount, stripeExponent, toStripeAmount } from './stripe.amounts.ts';

/** What Stripe documents per currency group (https://docs.stripe.com/currencies), written out here, not derived. */
const STRIPE_ZERO = [
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
];
const STRIPE_THREE = ['BHD', 'JOD', 'KWD', 'OMR', 'TND'];

describe('happy', () => {
  it.each(STRIPE_CARD_DEFINITION.supportedCurrencies)('%s: one major unit and back, exactly', (currency) => {
    const major = 10 ** currencyExponent(currency);
    const stripe = toStripeAmount(major * 12, currency);
    expect(stripe).toBe(12 * 10 ** stripeExponent(currency));
    expect(fromStripeAmount(stripe, currency)).toBe(major * 12);
  });

  it("follows Stripe's documented groups", () => {
    for (const c of STRIPE_ZERO) expect(stripeExponent(c), c).toBe(0);
    for (const c of STRIPE_THREE) expect(stripeExponent(c), c).toBe(3);
    expect(toStripeAmount(1050, 'USD')).toBe(1050);
    expect(toStripeAmount(500, 'JPY')).toBe(500);
    expect(toStripeAmount(5, 'ISK')).toBe(500);
    expect(toStripeAmount(1230, 'KWD')).toBe(1230);
    expect(toStripeAmount(1200, 'MGA')).toBe(12);
    expect(fromStripeAmount(12, 'MGA')).toBe(1200);
  });
});

describe('errors', () => {
  it.each([
    [1235, 'KWD', 'multiples of 10'],
    [1250, 'MGA', 'multiples of 100'],
  ])('refuses %i %s, which Stripe cannot take exactly (never rounds)', (amount, currency, words) => {
    const error = (() => {
      try {
        toStripeAmount(amount, currency);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).kind).toBe('invalid_request');
    expect((error as Error).message).toContain(words);
  });
});
