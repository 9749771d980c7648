import type { ConnectorDefinition } from '../connector.ts';
import { ADYEN_CARD_DEFINITION } from './adyen.definition.ts';

/** The Adyen fields an iDEAL payment service needs: the same API key, merchant account, live prefix and webhook key as cards. */
const IDEAL_FIELDS = new Set(['api_key', 'merchant_account', 'live_url_prefix', 'hmac_key']);

/**
 * iDEAL through Adyen (docs.adyen.com/payment-methods/ideal/api-only): Dutch bank redirect, EUR
 * only, buyers in the Netherlands. The payment is captured when the buyer approves it at the bank
 * (iDEAL has no separate capture and no cancel, Adyen's page "iDEAL": "Separate captures: no");
 * full and partial refunds.
 */
export const ADYEN_IDEAL_DEFINITION: ConnectorDefinition = {
  id: 'adyen-ideal',
  displayName: 'Adyen iDEAL',
  method: 'ideal',
  mode: 'redirect',
  fields: ADYEN_CARD_DEFINITION.fields.filter((f) => IDEAL_FIELDS.has(f.key)),
  reportingFields: [],
  supportedCurrencies: ['EUR'],
  supportedCountries: ['NL'],
  iconUrl: null,
  capabilities: {
    multiCapture: false,
    overCapture: false,
    partialCapture: false,
    partialRefund: true,
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
  },
  supportedIntegrationClients: ['redirect', 'web'],
  configuration: {
    approval_ui_target: 'any',
    approval_ui_height: '',
    approval_ui_width: '',
    cart_items_limit: 249,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
};
