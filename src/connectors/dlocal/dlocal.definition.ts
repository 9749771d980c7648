import type { ConnectorDefinition } from '../connector.ts';

/** dLocal's Payins API: one host per environment (docs.dlocal.com/reference/api-environments). */
export const DLOCAL_URLS = {
  sandbox: 'https://sandbox.dlocal.com',
  live: 'https://api.dlocal.com',
} as const;
/** The only hosts the connector talks to (provider-http.ts refuses any other). */
export const DLOCAL_HOSTS = ['sandbox.dlocal.com', 'api.dlocal.com'] as const;

/**
 * dLocal's payment method id of PIX (docs.dlocal.com/docs/pix-payments: `"payment_method_id": "PQ"`
 * in both the REDIRECT and DIRECT examples). The connector asks for the DIRECT flow: dLocal answers
 * the PIX code itself, and the merchant's page shows it.
 */
export const DLOCAL_PIX_METHOD_ID = 'PQ';

export const DLOCAL_PIX_DEFINITION: ConnectorDefinition = {
  id: 'dlocal-pix',
  displayName: 'dLocal PIX',
  method: 'pix',
  mode: 'redirect',
  fields: [
    {
      key: 'x_login',
      display_name: 'X-Login (dLocal Merchant Dashboard: Integration, API keys)',
      required: true,
      format: 'text',
      secret: false,
      verifiable: true,
    },
    {
      key: 'x_trans_key',
      display_name: 'X-Trans-Key (same page)',
      required: true,
      format: 'text',
      secret: true,
      verifiable: true,
    },
    {
      key: 'secret_key',
      display_name: "Secret key (same page; signs our requests and verifies dLocal's notifications)",
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
  ],
  reportingFields: [],
  // PIX is Brazil's instant payment scheme: reais, in Brazil, only.
  supportedCurrencies: ['BRL'],
  supportedCountries: ['BR'],
  iconUrl: null,
  capabilities: {
    // PIX is a sale: the buyer's transfer is the capture. Nothing is held, so nothing to capture or void.
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
    approval_ui_height: '600px',
    approval_ui_width: '500px',
    cart_items_limit: 0,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
};
