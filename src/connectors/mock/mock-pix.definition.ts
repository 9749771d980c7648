import type { ConnectorDefinition } from '../connector.ts';
import { DLOCAL_PIX_DEFINITION } from '../dlocal/dlocal.definition.ts';
import { MOCK_REDIRECT_DEFINITION, MOCK_WEBHOOK_SECRET_FIELD } from './mock-redirect.connector.ts';

/**
 * The sandbox's PIX (issue 53): method `pix` without a dLocal account, as `dlocal-pix` does it: a
 * BRL sale in Brazil for a buyer with a CPF or CNPJ; the transaction waits with the PIX
 * copy-and-paste code (`additional_identifiers.pix_qr_code`) until the simulated provider reports it
 * paid or expired, `SANDBOX_ASYNC_DELAY_SECONDS` later (docs/sandbox.md, "Asynchronous methods");
 * no capture or void; refunds are processing until a status query.
 */
export const MOCK_PIX_DEFINITION: ConnectorDefinition = {
  ...MOCK_REDIRECT_DEFINITION,
  id: 'mock-pix',
  displayName: 'Mock PIX (sandbox QR / copy-paste code)',
  method: 'pix',
  fields: [...MOCK_REDIRECT_DEFINITION.fields, MOCK_WEBHOOK_SECRET_FIELD],
  supportedCurrencies: DLOCAL_PIX_DEFINITION.supportedCurrencies,
  supportedCountries: DLOCAL_PIX_DEFINITION.supportedCountries,
  capabilities: DLOCAL_PIX_DEFINITION.capabilities,
  configuration: DLOCAL_PIX_DEFINITION.configuration,
};
