import { runConnectorContract } from './contract.ts';
import { mockRedirectHarness } from './mock-redirect.harness.ts';

/** mock-klarna with the contract's redirect variant: authorized once approved, captured, voided, refunded. */
runConnectorContract(
  'mock-klarna',
  mockRedirectHarness('mock-klarna', 'mock_kl', { method: 'klarna', currency: 'EUR', country: 'DE' }),
);
