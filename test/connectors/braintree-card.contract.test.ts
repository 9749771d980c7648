import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { BraintreeCardConnector } from '../../src/connectors/braintree/braintree.connector.ts';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../fakes/braintree-fake.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';

/** braintree-card against the local Braintree fake (Braintree's sandbox amounts, test/fakes/braintree-fake.ts). */
let fake: BraintreeFake;
let connector: BraintreeCardConnector;

beforeAll(async () => {
  fake = await startBraintreeFake();
  // The contract refunds right after capturing: the fake settles captures at once (Braintree's sandbox testing settle).
  fake.settleOnCapture = true;
  connector = new BraintreeCardConnector({ baseUrls: { 'braintree-card': fake.baseUrl } });
});
afterAll(async () => fake.close());

/** The legacy id inside a GraphQL transaction id (base64 of `transaction_<legacy id>`). */
const legacyOf = (id: string) =>
  Buffer.from(id, 'base64')
    .toString('utf8')
    .replace(/^transaction_/, '');

function payload(
  kind: 'capture_succeeded' | 'refund_succeeded' | 'chargeback_opened',
  id: string,
  amount: number,
): string {
  const value = (amount / 100).toFixed(2);
  const subject =
    kind === 'capture_succeeded'
      ? `<transaction><id>${legacyOf(id)}</id><type>sale</type><amount>${value}</amount><currency-iso-code>USD</currency-iso-code></transaction>`
      : kind === 'refund_succeeded'
        ? `<transaction><id>refund1</id><type>credit</type><refunded-transaction-id>${legacyOf(id)}</refunded-transaction-id><amount>${value}</amount><currency-iso-code>USD</currency-iso-code></transaction>`
        : `<dispute><id>dp1</id><amount-disputed>${value}</amount-disputed><currency-iso-code>USD</currency-iso-code><transaction><id>${legacyOf(id)}</id></transaction></dispute>`;
  const name = kind === 'chargeback_opened' ? 'dispute_opened' : 'transaction_settled';
  return `<notification><timestamp type="datetime">${new Date().toISOString()}</timestamp><kind>${name}</kind><subject>${subject}</subject></notification>`;
}

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({ environment: 'sandbox', merchant_id: 'mid', ...BRAINTREE_FAKE_KEYS }),
  currency: 'USD',
  approve: { number: '4111111111111111', amount: 1000 },
  decline: { number: '4111111111111111', amount: 200100, errorCode: 'insufficient_funds' },
  threeDS: { number: '4111111111111111', amount: 209900, expect: 'authentication_required' },
  unanswered: () => ({ card: { number: '4111111111111111', amount: 409000 }, timeoutMs: 5000 }),
  webhook: (kind, id, amount, tamper) => {
    const body = Buffer.from(payload(kind, id, amount)).toString('base64');
    const key = createHash('sha1')
      .update(tamper ? 'another_private_key' : BRAINTREE_FAKE_KEYS.private_key)
      .digest();
    const signature = `${BRAINTREE_FAKE_KEYS.public_key}|${createHmac('sha1', key).update(body).digest('hex')}`;
    return {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: Buffer.from(new URLSearchParams({ bt_signature: signature, bt_payload: body }).toString()),
      url: 'http://localhost/webhooks',
    };
  },
  fault: (status) => fake.failNext(status),
});

runConnectorContract('braintree-card', harness);
