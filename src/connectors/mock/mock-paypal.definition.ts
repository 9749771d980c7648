import type { ConnectorDefinition } from '../connector.ts';
import { PAYPAL_COUNTRIES, PAYPAL_CURRENCIES } from '../paypal/paypal.definition.ts';
import { MOCK_REDIRECT_DEFINITION } from './mock-redirect.connector.ts';

/**
 * The sandbox's PayPal (issue 53): method `paypal` without a PayPal account. The buyer approves
 * or declines on the sandbox approval page, as PayPal's own page would ask; then, like PayPal,
 * several partial captures, voids and partial refunds. PayPal's currencies and countries, so
 * payment options offer it where `paypal-paypal` would be. The decline amounts of `mock-card`
 * decline after approval (docs/sandbox.md).
 */
export const MOCK_PAYPAL_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-paypal',
  displayName: 'Mock PayPal (sandbox buyer approval)',
  method: 'paypal',
  supportedCurrencies: PAYPAL_CURRENCIES,
  supportedCountries: PAYPAL_COUNTRIES,
  capabilities: { ...MOCK_REDIRECT_DEFINITION.capabilities, multiCapture: true },
};
