import { afterAll, beforeAll } from 'vitest';
import { CheckoutCardConnector } from '../../src/connectors/checkout/checkout.connector.ts';
import {
  CHECKOUT_FAKE_ACCOUNT,
  CHECKOUT_FAKE_CHANNEL,
  CHECKOUT_FAKE_KEY,
  startCheckoutFake,
  type CheckoutFake,
} from '../fakes/checkout-fake.ts';
import { runConnectorContract, type ContractHarness } from './contract.ts';
import { runPayoutContract } from './contract-payouts.ts';

/** checkout-card against the local Checkout.com fake (amount-driven outcomes, test/fakes/checkout-fake.ts). */
let fake: CheckoutFake;
let connector: CheckoutCardConnector;
const SIGNATURE_KEY = 'whsec-checkout-contract-key';

beforeAll(async () => {
  fake = await startCheckoutFake();
  connector = new CheckoutCardConnector({ baseUrls: { 'checkout-card': fake.baseUrl } });
});
afterAll(async () => fake.close());

const EVENT_TYPES = {
  capture_succeeded: 'payment_captured',
  refund_succeeded: 'payment_refunded',
  chargeback_opened: 'dispute_received',
} as const;

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({
    secret_key: CHECKOUT_FAKE_KEY,
    processing_channel_id: CHECKOUT_FAKE_CHANNEL,
    webhook_signature_key: SIGNATURE_KEY,
    three_ds_enabled: 'true',
  }),
  currency: 'USD',
  approve: { number: '4242424242424242', amount: 1000 },
  decline: { number: '4242424242424242', amount: 2051, errorCode: 'insufficient_funds' },
  threeDS: { number: '4485040371536584', amount: 2300, expect: 'redirect' },
  unanswered: () => ({ card: { number: '4242424242424242', amount: 2409 }, timeoutMs: 5000 }),
  webhook: (kind, payment, amount, tamper) => {
    const dispute = kind === 'chargeback_opened';
    const data = dispute
      ? { id: 'dsp_contract0000000000000000', payment_id: payment, amount, currency: 'USD', reason_code: '10.4' }
      : { id: payment, action_id: 'act_contract0000000000000000', amount, currency: 'USD', response_code: '10000' };
    const signed = fake.webhook(EVENT_TYPES[kind], data, tamper ? 'another-key' : SIGNATURE_KEY);
    return { ...signed, url: 'http://localhost/webhooks' };
  },
  fault: (status) => fake.failNext(status),
  asyncModifications: true,
});

runConnectorContract('checkout-card', harness);

/** Card payouts from the fake's currency account (settled when read: Paid, or declined by amount). */
runPayoutContract('checkout-card', () => ({
  connector: () => connector,
  credentials: () => ({ ...harness().credentials(), payout_source_id: CHECKOUT_FAKE_ACCOUNT }),
  currency: 'USD',
  instrument: () => ({ kind: 'card', number: '4242424242424242', expirationDate: '12/40', scheme: 'visa' }),
  amount: 1000,
  refused: { amount: 3051, errorCode: 'insufficient_funds' },
  unanswered: { amount: 3409, timeoutMs: 5000 },
  settle: () => null,
}));
