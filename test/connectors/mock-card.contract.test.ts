import { MockCardConnector } from '../../src/connectors/mock/mock-card.connector.ts';
import { signMockWebhook } from '../../src/connectors/mock/mock-card.webhooks.ts';
import { runConnectorContract } from './contract.ts';

const connector = new MockCardConnector();
const credentials = { merchant_id: 'merchant-1', webhook_secret: 'mock_whsec_contract' };

runConnectorContract('mock-card', () => ({
  connector: () => connector,
  credentials: () => credentials,
  currency: 'USD',
  approve: { number: '4111111111111111', amount: 1000 },
  decline: { number: '4000000000009995', amount: 1000, errorCode: 'insufficient_funds' },
  threeDS: { number: '4000000000003220', amount: 1000, expect: 'authentication_required' },
  // The simulator "authorizes" and then loses the answer for this card.
  unanswered: () => ({ card: { number: '4000000000000408', amount: 1000 }, timeoutMs: 1000 }),
  webhook: (kind, providerTransactionId, amount, tamper) => {
    const body = JSON.stringify({
      id: `evt_${providerTransactionId}_${kind}`,
      type: kind.replace('_', '.'),
      transaction_id: providerTransactionId,
      amount,
      currency: 'USD',
    });
    const signature = signMockWebhook(tamper ? 'another secret' : credentials.webhook_secret, body);
    return {
      headers: { 'x-mock-signature': signature, 'content-type': 'application/json' },
      rawBody: Buffer.from(body),
      url: 'http://localhost/webhooks',
    };
  },
}));
