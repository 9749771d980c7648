import type { ConnectorDefinition } from '../connector.ts';
import { KLARNA_MARKETS } from '../adyen/adyen-klarna.definition.ts';
import { MOCK_REDIRECT_DEFINITION, MOCK_WEBHOOK_SECRET_FIELD } from './mock-redirect.connector.ts';

/**
 * The sandbox's Klarna (issue 53): method `klarna` without a Klarna or Adyen account. The buyer
 * approves on the sandbox page (standing in for Klarna's); then, as with Klarna, the authorization
 * is captured in one or several parts, voided, or refunded in part. Klarna's markets as `adyen-klarna`
 * lists them, so payment options offer it where the real connector would be.
 */
export const MOCK_KLARNA_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-klarna',
  displayName: 'Mock Klarna (sandbox buyer approval)',
  method: 'klarna',
  fields: [...MOCK_REDIRECT_DEFINITION.fields, MOCK_WEBHOOK_SECRET_FIELD],
  supportedCurrencies: [...new Set(Object.values(KLARNA_MARKETS).map((m) => m.currency))].sort(),
  supportedCountries: Object.keys(KLARNA_MARKETS).sort(),
  capabilities: { ...MOCK_REDIRECT_DEFINITION.capabilities, multiCapture: true },
};
