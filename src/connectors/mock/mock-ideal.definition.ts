import { ADYEN_IDEAL_DEFINITION } from '../adyen/adyen-ideal.definition.ts';
import type { ConnectorDefinition } from '../connector.ts';
import { MOCK_REDIRECT_DEFINITION, MOCK_WEBHOOK_SECRET_FIELD } from './mock-redirect.connector.ts';

/**
 * The sandbox's iDEAL (issue 53): method `ideal` without an Adyen account, as `adyen-ideal` does
 * it: EUR in the Netherlands, the buyer approves on the sandbox page (standing in for the bank's),
 * the payment is captured then (intent `capture` only; no separate capture, no void), refunds.
 */
export const MOCK_IDEAL_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-ideal',
  displayName: 'Mock iDEAL (sandbox bank approval)',
  method: 'ideal',
  fields: [...MOCK_REDIRECT_DEFINITION.fields, MOCK_WEBHOOK_SECRET_FIELD],
  supportedCurrencies: ADYEN_IDEAL_DEFINITION.supportedCurrencies,
  supportedCountries: ADYEN_IDEAL_DEFINITION.supportedCountries,
  capabilities: ADYEN_IDEAL_DEFINITION.capabilities,
};
