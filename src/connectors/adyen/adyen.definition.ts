import type { ConnectorDefinition } from '../connector.ts';

/** Adyen's Checkout API v71: the test endpoint, and the live one under the merchant's own prefix. */
export const ADYEN_TEST_URL = 'https://checkout-test.adyen.com/v71';
export const adyenLiveUrl = (prefix: string) => `https://${prefix}-checkout-live.adyenpayments.com/checkout/v71`;
/** The only hosts the connector talks to (provider-http.ts refuses any other). */
export const ADYEN_HOSTS = ['checkout-test.adyen.com', '*-checkout-live.adyenpayments.com'] as const;

/** Currencies this connector offers: Adyen's common card currencies, including its exponent exceptions. */
export const ADYEN_CURRENCIES = [
  'AED', 'AUD', 'BHD', 'BRL', 'CAD', 'CHF', 'CLP', 'CNY', 'CVE', 'CZK', 'DKK', 'EUR', 'GBP', 'HKD', 'HUF', 'ILS', 'INR', 'ISK',
  'JOD', 'JPY', 'KRW', 'KWD', 'MXN', 'MYR', 'NOK', 'NZD', 'OMR', 'PLN', 'QAR', 'RON', 'SAR', 'SEK', 'SGD', 'THB', 'TND', 'TWD', 'USD', 'VND', 'ZAR',
].sort();

export const ADYEN_COUNTRIES = [
  'AE', 'AT', 'AU', 'BE', 'BG', 'BH', 'BR', 'CA', 'CH', 'CL', 'CN', 'CV', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GB', 'GR', 'HK', 'HR', 'HU',
  'ID', 'IE', 'IL', 'IN', 'IS', 'IT', 'JO', 'JP', 'KR', 'KW', 'LT', 'LU', 'LV', 'MT', 'MX', 'MY', 'NL', 'NO', 'NZ', 'OM', 'PL', 'PT', 'QA', 'RO',
  'SA', 'SE', 'SG', 'SI', 'SK', 'TH', 'TN', 'TW', 'US', 'VN', 'ZA',
].sort();


export const ADYEN_CARD_DEFINITION: ConnectorDefinition = {
  id: 'adyen-card',
  displayName: 'Adyen (cards)',
  method: 'card',
  mode: 'card',
  fields: [
    { key: 'api_key', display_name: 'API key (X-API-Key of a web service user)', required: true, format: 'text', secret: true, verifiable: true },
    { key: 'merchant_account', display_name: 'Merchant account', required: true, format: 'text', secret: false, verifiable: true },
    { key: 'live_url_prefix', display_name: 'Live endpoint prefix (empty: test environment)', required: false, format: 'text', secret: false, verifiable: true },
    { key: 'hmac_key', display_name: 'Webhook HMAC key (hex)', required: false, format: 'text', secret: true, verifiable: false },
    { key: 'verification_currency', display_name: 'Currency of the zero-amount verification that stores a card (default EUR)', required: false, format: 'text', secret: false, verifiable: false },
    { key: 'report_api_key', display_name: 'Report API key (X-API-Key of a Report service user; downloads the Settlement details reports)', required: false, format: 'text', secret: true, verifiable: false },
    { key: 'report_username', display_name: 'Report user name (report@Company.<company>, basic authentication; instead of the report API key)', required: false, format: 'text', secret: false, verifiable: false },
    { key: 'report_password', display_name: 'Report user password (with the report user name)', required: false, format: 'text', secret: true, verifiable: false },
    { key: 'settlement_first_batch', display_name: 'First settlement batch number to read (empty: batch 1, or the first report Adyen announces)', required: false, format: 'number', secret: false, verifiable: false },
    { key: 'multi_capture_enabled', display_name: 'Allow multiple partial captures (must be enabled on the Adyen account)', required: false, format: 'boolean', secret: false, verifiable: false },
  ],
  reportingFields: [],
  supportedCurrencies: ADYEN_CURRENCIES,
  supportedCountries: ADYEN_COUNTRIES,
  iconUrl: null,
  capabilities: {
    multiCapture: true, overCapture: false, partialCapture: true, partialRefund: true, void: true, cancel: false,
    sync: true, tokenize: true, payout: false, threeDSecure: true, networkTokens: false, redirect: false, sessions: false, incrementalAuthorization: false,
    // Adyen runs 3DS itself when the issuer asks (RedirectShopper, ChallengeShopper: returnUrl is always sent).
    providerAuthentication: true,
    // Adyen decrypts Apple Pay and Google Pay tokens made for its keys (applePayToken, googlePayToken).
    encryptedWalletTokens: ['apple', 'google'],
  },
  supportedIntegrationClients: null,
  configuration: { approval_ui_target: 'any', approval_ui_height: '', approval_ui_width: '', cart_items_limit: 249, cart_items_required: false, cart_items_should_match_amount: false },
};
