import type { ConnectorDefinition } from '../connector.ts';
import { adyenMethodDefinition } from './adyen.method-definition.ts';

/**
 * iDEAL through Adyen (docs.adyen.com/payment-methods/ideal/api-only): Dutch bank redirect, EUR
 * only, buyers in the Netherlands. The payment is captured when the buyer approves it at the bank
 * (iDEAL has no separate capture and no cancel, Adyen's page "iDEAL": "Separate captures: no");
 * full and partial refunds.
 */
export const ADYEN_IDEAL_DEFINITION: ConnectorDefinition = adyenMethodDefinition({
  id: 'adyen-ideal',
  displayName: 'Adyen iDEAL',
  method: 'ideal',
  currencies: ['EUR'],
  countries: ['NL'],
  capabilities: { partialRefund: true },
});
