import type { AntiFraudDefinition } from '../anti-fraud/anti-fraud-connector.ts';

/** Riskified's API bases (apiref.riskified.com, "Overview": sandbox and production base URLs). */
export const RISKIFIED_URLS = {
  sandbox: 'https://sandbox.riskified.com/api',
  live: 'https://wh.riskified.com/api',
} as const;
/** The only hosts the connector talks to (provider-http.ts refuses any other). */
export const RISKIFIED_HOSTS = ['sandbox.riskified.com', 'wh.riskified.com'] as const;

export const RISKIFIED_ANTI_FRAUD_DEFINITION: AntiFraudDefinition = {
  id: 'riskified-anti-fraud',
  displayName: 'Riskified',
  fields: [
    {
      key: 'shop_domain',
      display_name: 'Shop domain (Riskified web app: the domain the shop was registered with)',
      required: true,
      format: 'text',
      secret: false,
      verifiable: false,
    },
    {
      key: 'auth_token',
      display_name: 'Authentication token (Riskified web app: Settings, Advanced)',
      required: true,
      format: 'text',
      secret: true,
      verifiable: false,
    },
    {
      key: 'environment',
      display_name: 'Environment: sandbox or live',
      required: false,
      format: 'text',
      secret: false,
      verifiable: false,
    },
  ],
};
