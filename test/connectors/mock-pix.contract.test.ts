import { runConnectorContract } from './contract.ts';
import { mockRedirectHarness } from './mock-redirect.harness.ts';

/** mock-pix with the contract's sale variant (as dlocal-pix): paid by the buyer, refunds processing. */
runConnectorContract(
  'mock-pix',
  mockRedirectHarness('mock-pix', 'mock_pix', {
    method: 'pix',
    currency: 'BRL',
    country: 'BR',
    sale: true,
    buyer: {
      name: 'Thiago Gabriel',
      emailAddress: 'thiago@example.com',
      taxId: { value: '530.333.155-50', kind: 'br.cpf' },
    },
  }),
);
