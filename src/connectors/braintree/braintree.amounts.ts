import { currencyExponent } from '../../lib/currencies.ts';

/**
 * Braintree's amounts are decimal strings in the currency of the merchant account ("10.00",
 * "1000" for JPY, "1.250" for KWD): the ISO 4217 exponent of src/lib/currencies.ts, with no
 * exception. This file is the one place our integer minor units become Braintree's strings.
 */
export function toBraintreeAmount(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const digits = String(amount).padStart(exponent + 1, '0');
  return exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** A Braintree decimal string back in our minor units; null when it is not a plain decimal. */
export function fromBraintreeAmount(value: string, currency: string): number | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) return null;
  const exponent = currencyExponent(currency);
  const fraction = (match[2] ?? '').padEnd(exponent, '0');
  if (fraction.length > exponent && /[1-9]/.test(fraction.slice(exponent))) return null;
  return Number(match[1]) * 10 ** exponent + Number(fraction.slice(0, exponent) || '0');
}
