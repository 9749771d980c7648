import type { ConnectorDefinition } from '../connector.ts';
import { COUNTRY_CODES } from '../../lib/countries.ts';
import { isCurrency } from '../../lib/currencies.ts';

/**
 * Stripe's card presentment currencies (https://docs.stripe.com/currencies) that our ISO table
 * knows; each goes through `stripe.amounts.ts`, whose test covers every one of them.
 */
const STRIPE_CURRENCIES = [
  'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BHD', 'BIF', 'BMD', 'BND', 'BOB', 'BRL',
  'BSD', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHF', 'CLP', 'CNY', 'COP', 'CRC', 'CVE', 'CZK', 'DJF', 'DKK', 'DOP', 'DZD', 'EGP', 'ETB', 'EUR',
  'FJD', 'FKP', 'GBP', 'GEL', 'GIP', 'GMD', 'GNF', 'GTQ', 'GYD', 'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'ISK', 'JMD', 'JOD', 'JPY',
  'KES', 'KGS', 'KHR', 'KMF', 'KRW', 'KWD', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP',
  'MUR', 'MVR', 'MWK', 'MXN', 'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'OMR', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'PYG',
  'QAR', 'RON', 'RSD', 'RUB', 'RWF', 'SAR', 'SBD', 'SCR', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD', 'SZL', 'THB', 'TJS', 'TND', 'TOP', 'TRY',
  'TTD', 'TWD', 'TZS', 'UAH', 'UGX', 'USD', 'UYU', 'UZS', 'VND', 'VUV', 'WST', 'XAF', 'XCD', 'XOF', 'XPF', 'YER', 'ZAR', 'ZMW',
].filter(isCurrency);

export const STRIPE_CARD_DEFINITION: ConnectorDefinition = {
  id: 'stripe-card',
  displayName: 'Stripe (cards)',
  method: 'card',
  mode: 'card',
  fields: [
    { key: 'secret_key', display_name: 'Secret key (sk_live_... or sk_test_..., or a restricted key rk_...)', required: true, format: 'text', secret: true, verifiable: true },
    { key: 'webhook_signing_secret', display_name: 'Webhook signing secret (whsec_...) of the endpoint pointing at this payment service', required: false, format: 'text', secret: true, verifiable: false },
    { key: 'publishable_key', display_name: 'Publishable key (pk_...)', required: false, format: 'text', secret: false, verifiable: false },
    { key: 'multi_capture_enabled', display_name: 'Multicapture is enabled on the Stripe account (IC+ pricing)', required: false, format: 'boolean', secret: false, verifiable: false },
    { key: 'network_transaction_ids_enabled', display_name: 'Stripe enabled merchant-initiated payments with network transaction ids of other processors on the account (mit_exemption)', required: false, format: 'boolean', secret: false, verifiable: false },
  ],
  reportingFields: [],
  supportedCurrencies: STRIPE_CURRENCIES,
  supportedCountries: [...COUNTRY_CODES].sort(),
  iconUrl: null,
  // True only for what this connector does: no over-capture, payouts, sessions, network tokens or
  // incremental authorization; Stripe runs 3DS itself (next_action → the buyer's approval page).
  capabilities: {
    multiCapture: true, overCapture: false, partialCapture: true, partialRefund: true, void: true, cancel: true,
    sync: true, tokenize: true, payout: false, threeDSecure: true, networkTokens: false, redirect: false, sessions: false, incrementalAuthorization: false,
    providerAuthentication: true,
    // None: Stripe's API has no documented server-side field for an encrypted Apple Pay token (Stripe's
    // own client SDKs exchange it), and a Google Pay token made for gateway `stripe` is already a
    // Stripe token, not an ECv2 message to pass on (docs/connectors-adyen-braintree.md).
    encryptedWalletTokens: [],
  },
  supportedIntegrationClients: null,
  configuration: { approval_ui_target: 'any', approval_ui_height: '', approval_ui_width: '', cart_items_limit: 249, cart_items_required: false, cart_items_should_match_amount: false },
};
