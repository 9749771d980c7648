import type { ConnectorDefinition } from '../connector.ts';
import { GOCARDLESS_DEFINITION } from '../gocardless/gocardless.definition.ts';
import { MOCK_REDIRECT_DEFINITION, MOCK_WEBHOOK_SECRET_FIELD } from './mock-redirect.connector.ts';

/**
 * The sandbox's GoCardless (issue 53): method `gocardless` without a GoCardless account, as
 * `gocardless-gocardless` does it: GoCardless's schemes' currencies and countries; the payer sets
 * up the mandate on the sandbox page (the authorization); a collection (intent `capture`, or a
 * capture) is `capture_pending` until the simulated GoCardless reports it, `SANDBOX_ASYNC_DELAY_SECONDS`
 * later instead of days (docs/sandbox.md, "Asynchronous methods"); voids cancel the mandate; refunds
 * are processing until a status query.
 */
export const MOCK_GOCARDLESS_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-gocardless',
  displayName: 'Mock GoCardless (sandbox direct debit mandate)',
  method: 'gocardless',
  fields: [...MOCK_REDIRECT_DEFINITION.fields, MOCK_WEBHOOK_SECRET_FIELD],
  supportedCurrencies: GOCARDLESS_DEFINITION.supportedCurrencies,
  supportedCountries: GOCARDLESS_DEFINITION.supportedCountries,
  capabilities: GOCARDLESS_DEFINITION.capabilities,
  configuration: GOCARDLESS_DEFINITION.configuration,
};
