import type { ConnectorDefinition } from '../connector.ts';

/** Braintree's GraphQL API: one endpoint per environment. */
export const BRAINTREE_URLS = { sandbox: 'https://payments.sandbox.braintree-api.com/graphql', production: 'https://payments.braintree-api.com/graphql' } as const;
export const BRAINTREE_HOSTS = ['payments.sandbox.braintree-api.com', 'payments.braintree-api.com'] as const;
/** The API version header every request carries (Braintree's GraphQL versioning). */
export const BRAINTREE_VERSION = '2019-01-01';

/** Presentment currencies offered; each needs a Braintree merchant account in that currency. */
export const BRAINTREE_CURRENCIES = ['AUD', 'BHD', 'CAD', 'CHF', 'CZK', 'DKK', 'EUR', 'GBP', 'HKD', 'HUF', 'JPY', 'KRW', 'KWD', 'MXN', 'NOK', 'NZD', 'PLN', 'SEK', 'SGD', 'USD', 'ZAR'].sort();

export const BRAINTREE_COUNTRIES = [
  'AT', 'AU', 'BE', 'BG', 'BH', 'CA', 'CH', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GB', 'GR', 'HK', 'HR', 'HU', 'IE', 'IT', 'JP', 'KR', 'KW',
  'LT', 'LU', 'LV', 'MT', 'MX', 'NL', 'NO', 'NZ', 'PL', 'PT', 'RO', 'SE', 'SG', 'SI', 'SK', 'US', 'ZA',
].sort();

export const BRAINTREE_CARD_DEFINITION: ConnectorDefinition = {
  id: 'braintree-card',
  displayName: 'Braintree (cards)',
  method: 'card',
  mode: 'card',
  fields: [
    { key: 'environment', display_name: 'Environment: sandbox or production', required: true, format: 'text', secret: false, verifiable: true },
    { key: 'merchant_id', display_name: 'Merchant ID', required: true, format: 'text', secret: false, verifiable: true },
    { key: 'public_key', display_name: 'Public key', required: true, format: 'text', secret: false, verifiable: true },
    { key: 'private_key', display_name: 'Private key', required: true, format: 'text', secret: true, verifiable: true },
    { key: 'merchant_account_ids', display_name: 'Merchant account per currency, e.g. USD=acme_usd,EUR=acme_eur (empty: the default merchant account)', required: false, format: 'text', secret: false, verifiable: false },
  ],
  reportingFields: [],
  supportedCurrencies: BRAINTREE_CURRENCIES,
  supportedCountries: BRAINTREE_COUNTRIES,
  iconUrl: null,
  capabilities: {
    multiCapture: false, overCapture: false, partialCapture: true, partialRefund: true, void: true, cancel: false,
    sync: true, tokenize: true, payout: false, threeDSecure: false, networkTokens: false, redirect: false, sessions: false, incrementalAuthorization: false,
    // None here: Braintree takes Apple Pay tokens made for its certificate through tokenizeApplePayCard,
    // which this connector does not call (it authorizes credit cards only), and a Google Pay token made
    // for gateway `braintree` is already a Braintree nonce (docs/connectors-adyen-braintree.md).
    encryptedWalletTokens: [],
  },
  supportedIntegrationClients: null,
  configuration: { approval_ui_target: 'any', approval_ui_height: '', approval_ui_width: '', cart_items_limit: 249, cart_items_required: false, cart_items_should_match_amount: false },
};
