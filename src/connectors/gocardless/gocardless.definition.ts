import type { ConnectorDefinition } from '../connector.ts';
import { SEPA_ZONE_COUNTRIES } from '../sepa-zone.ts';

/** GoCardless's API: one host per environment (developer.gocardless.com/api-reference/#making-requests). */
export const GOCARDLESS_URLS = {
  sandbox: 'https://api-sandbox.gocardless.com',
  live: 'https://api.gocardless.com',
} as const;
/** The only hosts the connector talks to (provider-http.ts refuses any other). */
export const GOCARDLESS_HOSTS = ['api-sandbox.gocardless.com', 'api.gocardless.com'] as const;
/** The API version every call names (`GoCardless-Version`). */
export const GOCARDLESS_VERSION = '2015-07-06';

/**
 * The currency of each direct debit scheme GoCardless collects with, and the countries of its
 * payers (developer.gocardless.com/getting-started/... "Supported schemes"): Bacs (GBP, GB), SEPA
 * Core (EUR, the SEPA zone), Autogiro (SEK, SE), Betalingsservice (DKK, DK), BECS (AUD, AU),
 * BECS NZ (NZD, NZ), PAD (CAD, CA), ACH (USD, US). GoCardless picks the scheme from the currency.
 */
export const GOCARDLESS_SCHEMES = {
  GBP: { scheme: 'bacs', countries: ['GB'] },
  EUR: { scheme: 'sepa_core', countries: SEPA_ZONE_COUNTRIES },
  SEK: { scheme: 'autogiro', countries: ['SE'] },
  DKK: { scheme: 'betalingsservice', countries: ['DK'] },
  AUD: { scheme: 'becs', countries: ['AU'] },
  NZD: { scheme: 'becs_nz', countries: ['NZ'] },
  CAD: { scheme: 'pad', countries: ['CA'] },
  USD: { scheme: 'ach', countries: ['US'] },
} as const satisfies Record<string, { scheme: string; countries: readonly string[] }>;

export const GOCARDLESS_CURRENCIES = Object.keys(GOCARDLESS_SCHEMES).sort();
export const GOCARDLESS_COUNTRIES = [
  ...new Set(Object.values(GOCARDLESS_SCHEMES).flatMap((s) => [...s.countries])),
].sort();

export const GOCARDLESS_DEFINITION: ConnectorDefinition = {
  // The id the public API's connection options name (`gocardless-gocardless`: GoCardlessOptions).
  id: 'gocardless-gocardless',
  displayName: 'GoCardless',
  method: 'gocardless',
  mode: 'redirect',
  fields: [
    {
      key: 'access_token',
      display_name: 'Access token (Developers → Create → Access token, read-write)',
      required: true,
      format: 'text',
      secret: true,
      verifiable: true,
    },
    {
      key: 'environment',
      display_name: 'Environment: sandbox or live (default sandbox)',
      required: false,
      format: 'text',
      secret: false,
      verifiable: true,
    },
    {
      key: 'webhook_secret',
      display_name: "Webhook endpoint secret (the endpoint for this service's URL; verifies GoCardless's events)",
      required: false,
      format: 'text',
      secret: true,
      verifiable: false,
    },
  ],
  reportingFields: [],
  supportedCurrencies: GOCARDLESS_CURRENCIES,
  supportedCountries: GOCARDLESS_COUNTRIES,
  iconUrl: null,
  capabilities: {
    // A mandate is collected from once per capture here; a second payment while one is pending is not offered.
    multiCapture: false,
    // A payment may not exceed what the payer agreed to: no over-capture.
    overCapture: false,
    // A capture is a payment of any amount under the mandate.
    partialCapture: true,
    // POST /refunds takes any amount up to the payment's (with total_amount_confirmation).
    partialRefund: true,
    // Nothing is held: a void cancels the mandate before anything is collected.
    void: true,
    // A billing request awaiting its payer can be cancelled, but the engine's cancel is not wired here.
    cancel: false,
    sync: true,
    tokenize: false,
    payout: false,
    threeDSecure: false,
    networkTokens: false,
    redirect: true,
    sessions: false,
    incrementalAuthorization: false,
  },
  supportedIntegrationClients: ['redirect', 'web'],
  configuration: {
    approval_ui_target: 'any',
    approval_ui_height: '600px',
    approval_ui_width: '500px',
    cart_items_limit: 0,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
};
