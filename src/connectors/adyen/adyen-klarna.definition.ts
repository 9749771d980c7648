import type { ConnectorDefinition } from '../connector.ts';
import { adyenMethodDefinition } from './adyen.method-definition.ts';

/**
 * Where Adyen offers Klarna (docs.adyen.com/payment-methods/klarna, "supported countries/regions"),
 * with the one currency Klarna takes there (Klarna serves each country in its local currency only,
 * docs.klarna.com "purchase countries, currencies and locales"), and the Adyen payment method type
 * sent: `klarna` (Pay later) where Adyen lists it, else `klarna_account` (Pay over time), and
 * `klarna_paynow` (Pay now) in Austria, where Adyen lists Pay now only. The merchant enables the
 * type in the Customer Area (Settings > Payment methods); Klarna shows the buyer its options there.
 */
export const KLARNA_MARKETS = {
  AT: { currency: 'EUR', type: 'klarna_paynow' },
  AU: { currency: 'AUD', type: 'klarna_account' },
  BE: { currency: 'EUR', type: 'klarna' },
  CA: { currency: 'CAD', type: 'klarna_account' },
  CH: { currency: 'CHF', type: 'klarna' },
  CZ: { currency: 'CZK', type: 'klarna_account' },
  DE: { currency: 'EUR', type: 'klarna' },
  DK: { currency: 'DKK', type: 'klarna_account' },
  ES: { currency: 'EUR', type: 'klarna_account' },
  FI: { currency: 'EUR', type: 'klarna_account' },
  FR: { currency: 'EUR', type: 'klarna_account' },
  GB: { currency: 'GBP', type: 'klarna' },
  GR: { currency: 'EUR', type: 'klarna_account' },
  IE: { currency: 'EUR', type: 'klarna_account' },
  IT: { currency: 'EUR', type: 'klarna_account' },
  NL: { currency: 'EUR', type: 'klarna_account' },
  NO: { currency: 'NOK', type: 'klarna' },
  PL: { currency: 'PLN', type: 'klarna' },
  PT: { currency: 'EUR', type: 'klarna_account' },
  RO: { currency: 'RON', type: 'klarna_account' },
  SE: { currency: 'SEK', type: 'klarna' },
  US: { currency: 'USD', type: 'klarna' },
} as const satisfies Record<string, { currency: string; type: 'klarna' | 'klarna_account' | 'klarna_paynow' }>;

/**
 * Klarna through Adyen's `/payments` (docs.adyen.com/payment-methods/klarna/api-only, redirect to
 * Klarna): the order's lines are required and must add up to the amount; authorized on Klarna's
 * page, captured separately (partial: one capture, Adyen releases the rest unless multiple partial
 * captures are enabled for the account), cancelled before capture, refunded (partially).
 */
export const ADYEN_KLARNA_DEFINITION: ConnectorDefinition = adyenMethodDefinition({
  id: 'adyen-klarna',
  displayName: 'Adyen Klarna',
  method: 'klarna',
  currencies: [...new Set(Object.values(KLARNA_MARKETS).map((m) => m.currency))].sort(),
  countries: Object.keys(KLARNA_MARKETS).sort(),
  capabilities: { partialCapture: true, partialRefund: true, void: true },
  cartItemsRequired: true,
});
