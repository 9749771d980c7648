import { runConnectorContract } from './contract.ts';
import { mockRedirectHarness } from './mock-redirect.harness.ts';

/** mock-gocardless with the contract's redirect variant: the mandate authorizes; captures are collected later (pending). */
runConnectorContract(
  'mock-gocardless',
  mockRedirectHarness('mock-gocardless', 'mock_gc', {
    method: 'gocardless',
    currency: 'GBP',
    country: 'GB',
    directDebit: true,
  }),
);
