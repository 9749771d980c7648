import { currencyExponent } from '../../lib/currencies.ts';

/**
 * Adyen's minor units. Adyen counts amounts in the ISO 4217 minor unit of the currency except
 * where its own table (docs.adyen.com/development-resources/currency-codes) differs: CLP and ISK
 * with 2 decimals (ISO: 0), CVE with 0 (ISO: 2). Our API always uses the ISO exponent
 * (src/lib/currencies.ts); this file is the one place the two are converted.
 */
export const ADYEN_EXPONENT_EXCEPTIONS: Readonly<Record<string, number>> = Object.freeze({ CLP: 2, ISK: 2, CVE: 0 });

export function adyenExponent(currency: string): number {
  return ADYEN_EXPONENT_EXCEPTIONS[currency] ?? currencyExponent(currency);
}

/** Our amount (ISO minor units) in Adyen's minor units; null when Adyen cannot express it (CVE cents). */
export function toAdyenValue(amount: number, currency: string): number | null {
  const shift = adyenExponent(currency) - currencyExponent(currency);
  if (shift >= 0) return amount * 10 ** shift;
  const factor = 10 ** -shift;
  return amount % factor === 0 ? amount / factor : null;
}

/** Adyen's value back in our minor units (webhooks report Adyen's units). */
export function fromAdyenValue(value: number, currency: string): number {
  const shift = adyenExponent(currency) - currencyExponent(currency);
  return shift >= 0 ? Math.round(value / 10 ** shift) : value * 10 ** -shift;
}
