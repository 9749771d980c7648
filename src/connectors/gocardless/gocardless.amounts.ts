import { currencyExponent } from '../../lib/currencies.ts';
import { ConnectorError } from '../connector.ts';
import { GOCARDLESS_SCHEMES } from './gocardless.definition.ts';

/**
 * GoCardless's amounts: integers in the currency's lowest denomination ("in the lowest
 * denomination for the currency (e.g. pence in GBP, cents in EUR)",
 * developer.gocardless.com/api-reference/#payments-create-a-payment), which for every currency
 * GoCardless collects in is ISO 4217's minor unit, as in our API. Anything else is refused.
 */
export function toGoCardlessAmount(amount: number, currency: string): number {
  if (!Object.hasOwn(GOCARDLESS_SCHEMES, currency))
    throw new ConnectorError('invalid_request', `GoCardless does not collect in ${currency}`);
  if (currencyExponent(currency) !== 2)
    throw new ConnectorError('invalid_request', `GoCardless's units for ${currency} are not ISO minor units`);
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new ConnectorError('invalid_request', `GoCardless cannot collect ${amount} minor units of ${currency}`);
  return amount;
}

/** GoCardless's amount → our minor units; null when it is not a whole positive number in a currency GoCardless uses. */
export function fromGoCardlessAmount(amount: unknown, currency: unknown): number | null {
  if (typeof currency !== 'string' || !Object.hasOwn(GOCARDLESS_SCHEMES, currency)) return null;
  return typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0 ? amount : null;
}
