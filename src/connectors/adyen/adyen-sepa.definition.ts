import type { ConnectorDefinition } from '../connector.ts';
import { SEPA_ZONE_COUNTRIES } from '../sepa-zone.ts';
import { adyenMethodDefinition } from './adyen.method-definition.ts';

/**
 * The countries of the SEPA Direct Debit scheme (the EU and EEA, Switzerland, the United Kingdom,
 * Monaco, San Marino, Andorra, the Vatican), whose buyers' EUR accounts Adyen debits
 * (docs.adyen.com/payment-methods/sepa-direct-debit: SEPA Direct Debit Core, EUR only).
 */
const SEPA_COUNTRIES = [...SEPA_ZONE_COUNTRIES, 'AD', 'VA'].sort();

/**
 * SEPA Direct Debit through Adyen's Hosted Checkout (decision: the buyer's IBAN is given on Adyen's
 * page, since our API carries none). A SEPA payment is authorised at once and captured with it
 * (Adyen: SEPA transactions always end AUTHORISATION; a failed debit, such as AM04 insufficient
 * funds, comes days later as a chargeback), so only intent `capture`; no void (nothing is held);
 * full and partial refunds.
 */
export const ADYEN_SEPA_DEFINITION: ConnectorDefinition = adyenMethodDefinition({
  id: 'adyen-sepa',
  displayName: 'Adyen SEPA Direct Debit',
  method: 'sepa',
  currencies: ['EUR'],
  countries: SEPA_COUNTRIES,
  capabilities: { partialRefund: true },
});
