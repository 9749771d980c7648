import { COUNTRY_CODES } from '../../lib/countries.ts';
import type { ConnectorDefinition } from '../connector.ts';

/** PayPal's REST API: one host per environment (developer.paypal.com/api/rest/requests). */
export const PAYPAL_URLS = {
  sandbox: 'https://api-m.sandbox.paypal.com',
  live: 'https://api-m.paypal.com',
} as const;
/** The only hosts the connector talks to (provider-http.ts refuses any other). */
export const PAYPAL_HOSTS = ['api-m.sandbox.paypal.com', 'api-m.paypal.com'] as const;

/**
 * PayPal's REST currency codes (developer.paypal.com/reference/currency-codes). BRL, CNY and MYR
 * are for PayPal accounts in Brazil, China and Malaysia only; HUF, JPY and TWD take no decimals at
 * PayPal (paypal.amounts.ts).
 */
export const PAYPAL_CURRENCIES = [
  'AUD',
  'BRL',
  'CAD',
  'CHF',
  'CNY',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HUF',
  'ILS',
  'JPY',
  'MXN',
  'MYR',
  'NOK',
  'NZD',
  'PHP',
  'PLN',
  'SEK',
  'SGD',
  'THB',
  'TWD',
  'USD',
].sort();

/** Countries PayPal does not serve (comprehensively sanctioned markets); buyers elsewhere pay with their PayPal account. */
const PAYPAL_UNSERVED = new Set(['CU', 'IR', 'KP', 'SY']);
export const PAYPAL_COUNTRIES = [...COUNTRY_CODES].filter((c) => !PAYPAL_UNSERVED.has(c)).sort();

export const PAYPAL_DEFINITION: ConnectorDefinition = {
  id: 'paypal-paypal',
  displayName: 'PayPal',
  method: 'paypal',
  mode: 'redirect',
  fields: [
    {
      key: 'client_id',
      display_name: 'Client ID (REST API app)',
      required: true,
      format: 'text',
      secret: false,
      verifiable: true,
    },
    {
      key: 'client_secret',
      display_name: 'Client secret (REST API app)',
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
      key: 'webhook_id',
      display_name: "Webhook ID (the app's webhook for this service's URL; verifies PayPal's events)",
      required: false,
      format: 'text',
      secret: false,
      verifiable: true,
    },
    {
      key: 'merchant_id',
      display_name: 'PayPal merchant ID of the payee (empty: the app owner receives the payments)',
      required: false,
      format: 'text',
      secret: false,
      verifiable: false,
    },
  ],
  reportingFields: [],
  supportedCurrencies: PAYPAL_CURRENCIES,
  supportedCountries: PAYPAL_COUNTRIES,
  iconUrl: null,
  capabilities: {
    // Orders v2: an authorization is captured in parts with final_capture false (developer.paypal.com/docs/checkout/standard/customize/authorization).
    multiCapture: true,
    // PayPal allows up to 115% (or +USD 75) on some accounts only: not offered.
    overCapture: false,
    partialCapture: true,
    partialRefund: true,
    void: true,
    // Orders v2 has no cancel of an order awaiting its buyer: an unapproved order expires at PayPal.
    cancel: false,
    sync: true,
    tokenize: false,
    // Payouts API to PayPal accounts: POST /payouts with a stored payment method of method paypal
    // (the payer id of an earlier PayPal payment with store: true). No card payouts through PayPal.
    payout: true,
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
    cart_items_limit: 249,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
};
