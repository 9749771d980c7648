import { ConnectorError } from '../connector.ts';
import { currencyExponent } from '../../lib/currencies.ts';

/**
 * Stripe's own minor units, in one place (https://docs.stripe.com/currencies). Our API carries ISO
 * 4217 minor units (src/lib/currencies.ts); Stripe differs from ISO for a few currencies:
 * - zero-decimal at Stripe: amounts are whole units (MGA has 2 ISO digits but is zero-decimal here);
 * - three-decimal (BHD, JOD, KWD, OMR, TND): 3 digits, but the last must be 0 for card payments;
 * - ISK is zero-decimal in ISO but stays two-decimal at Stripe, amounts divisible by 100.
 * An amount that cannot be expressed exactly is refused, never rounded: money is not guessed.
 */
const ZERO_DECIMAL = new Set([
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
]);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** Digits after the decimal point in Stripe's `amount` of this currency. */
export function stripeExponent(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/** Stripe's amount must be a multiple of this (its own units). */
function stripeStep(currency: string): number {
  if (THREE_DECIMAL.has(currency)) return 10;
  if (currency === 'ISK') return 100;
  return 1;
}

/** Our minor units → Stripe's `amount`. Throws `invalid_request` for an amount Stripe cannot take exactly. */
export function toStripeAmount(amount: number, currency: string): number {
  const shift = stripeExponent(currency) - currencyExponent(currency);
  const scaled = shift >= 0 ? amount * 10 ** shift : amount / 10 ** -shift;
  if (!Number.isSafeInteger(scaled) || scaled % stripeStep(currency) !== 0) {
    const multiple = shift >= 0 ? Math.max(stripeStep(currency) / 10 ** shift, 1) : stripeStep(currency) * 10 ** -shift;
    throw new ConnectorError(
      'invalid_request',
      `Stripe cannot take ${amount} minor units of ${currency} exactly: amounts in ${currency} must be multiples of ${multiple}`,
    );
  }
  return scaled;
}

/** Stripe's `amount` → our minor units (exact for every amount `toStripeAmount` produces). */
export function fromStripeAmount(amount: number, currency: string): number {
  const shift = stripeExponent(currency) - currencyExponent(currency);
  return shift >= 0 ? Math.round(amount / 10 ** shift) : amount * 10 ** -shift;
}
