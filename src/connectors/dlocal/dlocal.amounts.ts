import { currencyExponent } from '../../lib/currencies.ts';
import { ConnectorError } from '../connector.ts';

/**
 * dLocal's amounts: a JSON number in whole units of the currency ("Positive Float", at most two
 * decimals: docs.dlocal.com/reference/the-payment-object). Our API carries ISO 4217 minor units;
 * BRL (the only PIX currency) has two. An amount that cannot be written exactly is refused.
 */

/** Beyond this, a float in whole units may not print back as its exact decimal. */
const MAX_MINOR = 10 ** 13;

/** Our minor units → dLocal's amount. Throws `invalid_request` for an amount dLocal cannot take exactly. */
export function toDlocalAmount(amount: number, currency: string): number {
  const exponent = currencyExponent(currency);
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_MINOR || exponent > 2)
    throw new ConnectorError(
      'invalid_request',
      `dLocal cannot take ${amount} minor units of ${currency} exactly (a positive amount of at most ${MAX_MINOR})`,
    );
  return amount / 10 ** exponent;
}

/** dLocal's amount → our minor units; null when it is not a non-negative number of at most the currency's decimals. */
export function fromDlocalAmount(value: unknown, currency: string): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  const scaled = value * 10 ** currencyExponent(currency);
  const minor = Math.round(scaled);
  return Math.abs(scaled - minor) < 1e-6 && minor <= MAX_MINOR ? minor : null;
}
