import { currencyExponent } from '../../lib/currencies.ts';
import { ConnectorError } from '../connector.ts';

/**
 * Checkout.com's amounts (www.checkout.com/docs/payments/accept-payments/format-the-amount-value):
 * an integer of at most nine digits, greater than zero; the full value for BIF, DJF, GNF, ISK, JPY,
 * KMF, KRW, PYG, RWF, UGX, VUV, VND, XAF, XOF, XPF; thousandths with a last digit 0 for BHD, IQD,
 * JOD, KWD, LYD, OMR, TND; hundredths for every other currency, CLP included. Our API carries ISO
 * 4217 minor units (src/lib/currencies.ts): where ISO has fewer decimals (CLP has none) the amount
 * is scaled; where it would have more, the amount must be a multiple. An amount that cannot be
 * written exactly is refused, never rounded.
 */
const FULL_VALUE = new Set([
  'BIF',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VUV',
  'VND',
  'XAF',
  'XOF',
  'XPF',
]);
const THOUSANDTHS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);
const MAX = 999_999_999;

/** Decimals of Checkout.com's `amount` in this currency. */
export function checkoutDecimals(currency: string): number {
  return FULL_VALUE.has(currency) ? 0 : THOUSANDTHS.has(currency) ? 3 : 2;
}

/** Our minor units → Checkout.com's `amount` (greater than zero). Throws `invalid_request` for one it cannot take exactly. */
export function toCheckoutAmount(amount: number, currency: string): number {
  const iso = currencyExponent(currency);
  const decimals = checkoutDecimals(currency);
  const step = 10 ** Math.max(iso - decimals, 0);
  const scaled = iso >= decimals ? amount / step : amount * 10 ** (decimals - iso);
  const refuse = (why: string) =>
    new ConnectorError(
      'invalid_request',
      `Checkout.com cannot take ${amount} minor units of ${currency} exactly: ${why}`,
    );
  if (!Number.isSafeInteger(amount) || amount <= 0) throw refuse('the amount must be a positive integer');
  if (amount % step !== 0)
    throw refuse(`it takes ${decimals} decimals for ${currency}, so amounts must be multiples of ${step}`);
  // Thousandths: the last digit must be 0 (Checkout.com's rule), i.e. at most two decimals in fact.
  if (decimals === 3 && scaled % 10 !== 0) throw refuse(`the last digit of a ${currency} amount must be 0`);
  if (scaled > MAX) throw refuse('Checkout.com takes at most nine digits');
  return scaled;
}

/** Checkout.com's `amount` → our minor units; null when it is not a non-negative integer or not exact in ISO units. */
export function fromCheckoutAmount(value: unknown, currency: string): number | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return null;
  const iso = currencyExponent(currency);
  const decimals = checkoutDecimals(currency);
  if (iso >= decimals) return value * 10 ** (iso - decimals);
  const step = 10 ** (decimals - iso);
  return value % step === 0 ? value / step : null;
}
