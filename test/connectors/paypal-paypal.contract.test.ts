import { afterAll, beforeAll } from 'vitest';
import { PaypalConnector } from '../../src/connectors/paypal/paypal.connector.ts';
import { toPaypalMoney } from '../../src/connectors/paypal/paypal.amounts.ts';
import {
  PAYPAL_FAKE_CLIENT_ID,
  PAYPAL_FAKE_SECRET,
  PAYPAL_FAKE_WEBHOOK_ID,
  startPaypalFake,
  type PaypalFake,
} from '../fakes/paypal-fake.ts';
import { authorizeRequest, runConnectorContract, type ContractHarness } from './contract.ts';
import { runPayoutContract } from './contract-payouts.ts';

/** paypal-paypal against the local PayPal fake (amount-driven outcomes, test/fakes/paypal-fake.ts). */
let fake: PaypalFake;
let connector: PaypalConnector;

beforeAll(async () => {
  fake = await startPaypalFake();
  connector = new PaypalConnector({ baseUrls: { 'paypal-paypal': fake.url } });
});
afterAll(async () => fake.close());

/** The event PayPal sends for each kind: a capture, a refund of one, a dispute of one. */
function event(kind: 'capture_succeeded' | 'refund_succeeded' | 'chargeback_opened', order: string, amount: number) {
  const money = toPaypalMoney(amount, 'USD');
  if (kind === 'capture_succeeded')
    return {
      type: 'PAYMENT.CAPTURE.COMPLETED',
      resource: {
        id: '3C679366HH908993F',
        status: 'COMPLETED',
        amount: money,
        supplementary_data: { related_ids: { order_id: order } },
      },
    };
  const capture = fake.settle(order);
  if (kind === 'refund_succeeded')
    return {
      type: 'PAYMENT.CAPTURE.REFUNDED',
      resource: {
        id: '1JU08902781691411',
        status: 'COMPLETED',
        amount: money,
        links: [{ href: `${fake.url}/v2/payments/captures/${capture}`, rel: 'up', method: 'GET' }],
      },
    };
  return {
    type: 'CUSTOMER.DISPUTE.CREATED',
    resource: {
      dispute_id: 'PP-D-27803',
      reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
      status: 'OPEN',
      dispute_amount: money,
      disputed_transactions: [{ seller_transaction_id: capture }],
    },
  };
}

const harness = (): ContractHarness => ({
  connector: () => connector,
  credentials: () => ({
    client_id: PAYPAL_FAKE_CLIENT_ID,
    client_secret: PAYPAL_FAKE_SECRET,
    webhook_id: PAYPAL_FAKE_WEBHOOK_ID,
  }),
  currency: 'USD',
  approve: { number: '', amount: 1000 },
  decline: { number: '', amount: 2005, errorCode: 'do_not_honor' },
  redirect: {
    method: 'paypal',
    approve: (pending) => fake.approve(pending.providerTransactionId!),
    madeFor: (key) => fake.orderOfRequestId(key)?.id ?? null,
  },
  unanswered: () => ({ card: { number: '', amount: 2409 }, timeoutMs: 5000 }),
  webhook: (kind, order, amount, tamper) => {
    const { type, resource } = event(kind, order, amount);
    return fake.event(type, resource, tamper);
  },
  fault: (status) => fake.failNext(status),
});

runConnectorContract('paypal-paypal', harness);

/** Payouts to the PayPal account of a buyer who approved an order (its payer id), through the fake's Payouts API. */
runPayoutContract('paypal-paypal', () => ({
  connector: () => connector,
  credentials: harness().credentials,
  currency: 'USD',
  instrument: async () => {
    const c = harness();
    const pending = await connector.authorize(authorizeRequest(c, c.approve));
    fake.approve(pending.providerTransactionId!);
    return {
      kind: 'provider-account',
      method: 'paypal',
      accountId: fake.orders.get(pending.providerTransactionId!)!.payerId!,
    };
  },
  amount: 1500,
  refused: { amount: 3005, errorCode: 'blocked_by_risk_rules' },
  unanswered: { amount: 3408, timeoutMs: 5000 },
  settle: (batchId, tamper) => fake.completePayout(batchId, tamper),
}));
