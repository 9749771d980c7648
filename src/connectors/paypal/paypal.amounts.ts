import { currencyExponent } from '../../lib/currencies.ts';
import { ConnectorError } from '../connector.ts';

/**
 * PayPal's amounts, in one place: a decimal string in whole units (`"10.50"`), with the number of
 * decimals PayPal allows per currency (developer.paypal.com/reference/currency-codes). Our API
 * carries ISO 4217 minor units (src/lib/currencies.ts). PayPal takes no decimals for HUF and TWD,
 * which have two in ISO: their amounts must be whole units. An amount that cannot be written
 * exactly is refused, never rounded.
 */
const NO_DECIMALS = new Set(['HUF', 'JPY', 'TWD']);

/** Decimals of a PayPal amount in this currency. */
export function paypalDecimals(currency: string): number {
  return NO_DECIMALS.has(currency) ? 0 : 2;
}

/** Our minor units → PayPal's `{currency_code, value}`. Throws `invalid_request` for an amount PayPal cannot take exactly. */
export function toPaypalMoney(amount: number, currency: string): { currency_code: string; value: string } {
  const iso = currencyExponent(currency);
  const decimals = paypalDecimals(currency);
  const step = 10 ** Math.max(iso - decimals, 0);
  if (!Number.isSafeInteger(amount) || amount < 0 || amount % step !== 0)
    throw new ConnectorError(
      'invalid_request',
      `PayPal cannot take ${amount} minor units of ${currency} exactly: PayPal takes ${decimals} decimals for ${currency}, so amounts must be multiples of ${step}`,
    );
  const units = amount / 10 ** (iso - decimals);
  const digits = String(units).padStart(decimals + 1, '0');
  const value = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  return { currency_code: currency, value };
}

/** PayPal's decimal `value` → our minor units; null when it is not a plain decimal of at most PayPal's decimals. */
export function fromPaypalValue(value: string | undefined, currency: string): number | null {
  const decimals = paypalDecimals(currency);
  const match = value === undefined ? null : /^(\d{1,15})(?:\.(\d+))?$/.exec(value);
  if (!match || (match[2] ?? '').length > Math.max(decimals, currencyExponent(currency))) return null;
  const iso = currencyExponent(currency);
  const fraction = (match[2] ?? '').padEnd(iso, '0');
  if (fraction.length > iso) return null;
  return Number(match[1]) * 10 ** iso + (iso > 0 ? Number(fraction) : 0);
}
