import { runConnectorContract } from './contract.ts';
import { mockRedirectHarness } from './mock-redirect.harness.ts';

/** mock-sepa with the contract's redirect variant: the IBAN mandate authorizes; captures are collected later (pending). */
runConnectorContract(
  'mock-sepa',
  mockRedirectHarness('mock-sepa', 'mock_sepa', { method: 'sepa', currency: 'EUR', country: 'DE', directDebit: true }),
);
