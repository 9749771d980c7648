import type { ConnectorDefinition } from '../connector.ts';
import { MOCK_REDIRECT_DEFINITION, MOCK_WEBHOOK_SECRET_FIELD } from './mock-redirect.connector.ts';

/**
 * The markets where Klarna takes payments, each with its currency (docs.adyen.com/payment-methods/klarna,
 * "Supported countries/regions"); the sandbox offers Klarna where this pair fits.
 */
const KLARNA_MARKETS: Readonly<Record<string, string>> = {
  AT: 'EUR',
  AU: 'AUD',
  BE: 'EUR',
  CA: 'CAD',
  CH: 'CHF',
  CZ: 'CZK',
  DE: 'EUR',
  DK: 'DKK',
  ES: 'EUR',
  FI: 'EUR',
  FR: 'EUR',
  GB: 'GBP',
  GR: 'EUR',
  IE: 'EUR',
  IT: 'EUR',
  NL: 'EUR',
  NO: 'NOK',
  NZ: 'NZD',
  PL: 'PLN',
  PT: 'EUR',
  SE: 'SEK',
  US: 'USD',
};

/**
 * The sandbox's Klarna (issue 53): method `klarna` without a Klarna or Adyen account. The buyer
 * approves on the sandbox page (standing in for Klarna's); then, as with Klarna, the authorization
 * is captured in one or several parts, voided, or refunded in part.
 */
export const MOCK_KLARNA_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-klarna',
  displayName: 'Mock Klarna (sandbox buyer approval)',
  method: 'klarna',
  fields: [...MOCK_REDIRECT_DEFINITION.fields, MOCK_WEBHOOK_SECRET_FIELD],
  supportedCurrencies: [...new Set(Object.values(KLARNA_MARKETS))].sort(),
  supportedCountries: Object.keys(KLARNA_MARKETS).sort(),
  capabilities: { ...MOCK_REDIRECT_DEFINITION.capabilities, multiCapture: true },
};
