import type { ConnectorDefinition } from '../connector.ts';
import { GOCARDLESS_DEFINITION, GOCARDLESS_SCHEMES } from '../gocardless/gocardless.definition.ts';
import { MOCK_REDIRECT_DEFINITION, MOCK_WEBHOOK_SECRET_FIELD } from './mock-redirect.connector.ts';

/**
 * The sandbox's SEPA Direct Debit (issue 53): method `sepa` without a provider account. EUR, the
 * SEPA zone's countries (the SEPA Core scheme's, as GoCardless lists them). The buyer gives an
 * IBAN on the sandbox page (the mandate: the authorization); a collection is `capture_pending`
 * until the simulated bank reports it, `SANDBOX_ASYNC_DELAY_SECONDS` later, then possibly charged
 * back a delay after that (docs/sandbox.md, "Asynchronous methods"); voids cancel the mandate;
 * refunds are processing until a status query.
 */
export const MOCK_SEPA_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-sepa',
  displayName: 'Mock SEPA Direct Debit (sandbox IBAN mandate)',
  method: 'sepa',
  fields: [...MOCK_REDIRECT_DEFINITION.fields, MOCK_WEBHOOK_SECRET_FIELD],
  supportedCurrencies: ['EUR'],
  supportedCountries: [...GOCARDLESS_SCHEMES.EUR.countries],
  capabilities: GOCARDLESS_DEFINITION.capabilities,
};
