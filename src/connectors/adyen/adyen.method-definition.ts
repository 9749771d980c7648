import type { ConnectorCapabilities, ConnectorDefinition } from '../connector.ts';
import { ADYEN_CARD_DEFINITION } from './adyen.definition.ts';

/**
 * The Adyen fields a payment-method service (iDEAL, SEPA Direct Debit, Klarna) needs: the same API
 * key, merchant account, live prefix and webhook HMAC key as cards (one web service user serves
 * them all; it needs no raw card data permission).
 */
const METHOD_FIELDS = new Set(['api_key', 'merchant_account', 'live_url_prefix', 'hmac_key']);

/** No card capability: what a payment method through Adyen's Checkout API cannot do, whatever it is. */
const NONE: ConnectorCapabilities = {
  multiCapture: false,
  overCapture: false,
  partialCapture: false,
  partialRefund: false,
  void: false,
  cancel: false,
  sync: true,
  tokenize: false,
  payout: false,
  threeDSecure: false,
  networkTokens: false,
  redirect: true,
  sessions: false,
  incrementalAuthorization: false,
};

/** The definition of an Adyen payment method sent to a page of Adyen's or the method's (redirect mode). */
export function adyenMethodDefinition(definition: {
  id: string;
  displayName: string;
  method: string;
  currencies: string[];
  countries: string[];
  capabilities: Partial<ConnectorCapabilities>;
  cartItemsRequired?: boolean;
}): ConnectorDefinition {
  return {
    id: definition.id,
    displayName: definition.displayName,
    method: definition.method,
    mode: 'redirect',
    fields: ADYEN_CARD_DEFINITION.fields.filter((f) => METHOD_FIELDS.has(f.key)),
    reportingFields: [],
    supportedCurrencies: definition.currencies,
    supportedCountries: definition.countries,
    iconUrl: null,
    capabilities: { ...NONE, ...definition.capabilities },
    supportedIntegrationClients: ['redirect', 'web'],
    configuration: {
      approval_ui_target: 'any',
      approval_ui_height: '',
      approval_ui_width: '',
      cart_items_limit: 249,
      cart_items_required: definition.cartItemsRequired ?? false,
      cart_items_should_match_amount: definition.cartItemsRequired ?? false,
    },
  };
}
