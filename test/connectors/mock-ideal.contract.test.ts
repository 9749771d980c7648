import { runConnectorContract } from './contract.ts';
import { mockRedirectHarness } from './mock-redirect.harness.ts';

/** mock-ideal with the contract's redirect variant, captured when the buyer approves (as adyen-ideal). */
runConnectorContract(
  'mock-ideal',
  mockRedirectHarness('mock-ideal', 'mock_ideal', {
    method: 'ideal',
    currency: 'EUR',
    country: 'NL',
    capturedAtOnce: true,
  }),
);
