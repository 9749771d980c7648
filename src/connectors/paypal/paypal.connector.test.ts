import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PAYPAL_FAKE_CLIENT_ID,
  PAYPAL_FAKE_SECRET,
  PAYPAL_FAKE_WEBHOOK_ID,
  startPaypalFake,
  type PaypalFake,
} from '../../../test/fakes/paypal-fake.ts';
import type { AuthorizeRequest, SyncRequest } from '../connector.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { PaypalConnector } from './paypal.connector.ts';

/** paypal-paypal against the PayPal fake: what the contract test does not cover (intent capture, follow-up syncs, events). */
let fake: PaypalFake;
let connector: PaypalConnector;
const credentials = {
  client_id: PAYPAL_FAKE_CLIENT_ID,
  client_secret: PAYPAL_FAKE_SECRET,
  webhook_id: PAYPAL_FAKE_WEBHOOK_ID,
};

beforeAll(async () => {
  fake = await startPaypalFake();
  connector = new PaypalConnector({ baseUrls: { 'paypal-paypal': fake.url } });
});
afterAll(async () => fake.close());

const hint = (amount: number) => ({ method: 'paypal', bin: null, last4: null, authorizedAmount: amount });

function request(amount: number, extra: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    idempotencyKey: uuidv7(),
    credentials,
    options: null,
    reference: 'ref1',
    amount,
    currency: 'USD',
    country: 'US',
    intent: 'authorize',
    instrument: {
      kind: 'redirect',
      method: 'paypal',
      redirectUrl: 'https://shop.example/done',
      country: 'US',
      currency: 'USD',
    },
    merchantInitiated: false,
    isSubsequentPayment: false,
    paymentSource: 'ecommerce',
    threeDSecure: null,
    approvalBaseUrl: 'https://svc.example',
    merchantAccountId: 'm1',
    ...extra,
  };
}

function sync(
  operation: SyncRequest['operation'],
  key: string,
  order: string,
  own: string | null,
  amount = 1000,
): SyncRequest {
  return {
    idempotencyKey: key,
    credentials,
    options: null,
    operation,
    providerTransactionId: own ?? order,
    paymentProviderTransactionId: order,
    reference: 'r',
    amount,
    currency: 'USD',
    payment: hint(amount),
    intent: 'authorize',
    buyerApproved: null,
  };
}

/** An order the buyer approved, completed by sync; the order id. */
async function paid(amount: number, intent: 'authorize' | 'capture' = 'authorize') {
  const auth = request(amount, { intent });
  const pending = await connector.authorize(auth);
  expect(pending.approvalUrl).toContain('/checkoutnow?token=');
  const returned = fake.approve(pending.providerTransactionId!);
  const done = await connector.sync({
    ...sync('authorize', auth.idempotencyKey, pending.providerTransactionId!, null, amount),
    intent,
    returnParams: returned,
  });
  return { order: pending.providerTransactionId!, done };
}

describe('happy', () => {
  it('captures the order at once with intent capture', async () => {
    const { order, done } = await paid(1200, 'capture');
    expect(done).toMatchObject({ status: 'captured', providerTransactionId: order });
    expect(fake.bodies('/v2/checkout/orders').at(-1)?.intent).toBe('CAPTURE');
    expect(fake.orders.get(order)).toMatchObject({ intent: 'CAPTURE', captures: [{ status: 'COMPLETED' }] });
  });

  it('finds a capture and a refund by their own ids, and by the attempt id when their answer was lost', async () => {
    const { order } = await paid(1000);
    const key = uuidv7();
    const captured = await connector.capture({
      idempotencyKey: key,
      credentials,
      options: null,
      payment: hint(1000),
      providerTransactionId: order,
      reference: 'c',
      amount: 600,
      currency: 'USD',
      final: false,
    });
    expect(captured).toMatchObject({ status: 'succeeded', providerCaptureId: expect.any(String) });
    expect(await connector.sync(sync('capture', key, order, captured.providerCaptureId))).toMatchObject({
      status: 'captured',
      providerTransactionId: captured.providerCaptureId,
    });
    expect(await connector.sync(sync('capture', key, order, null))).toMatchObject({
      status: 'captured',
      providerTransactionId: captured.providerCaptureId,
    });
    expect(await connector.sync(sync('capture', uuidv7(), order, null))).toMatchObject({ status: 'not_found' });
    const refundKey = uuidv7();
    const refunded = await connector.refund({
      idempotencyKey: refundKey,
      credentials,
      options: null,
      payment: hint(1000),
      providerTransactionId: order,
      reference: 'f',
      amount: 100,
      currency: 'USD',
      reason: null,
    });
    expect(refunded).toMatchObject({ status: 'succeeded', providerRefundId: expect.any(String) });
    expect(await connector.sync(sync('refund', refundKey, order, refunded.providerRefundId))).toMatchObject({
      status: 'refunded',
    });
    expect(await connector.sync(sync('refund', refundKey, order, null))).toMatchObject({
      status: 'refunded',
      providerTransactionId: refunded.providerRefundId,
    });
    // A retried capture with the same attempt id gets PayPal's first answer: nothing is captured twice.
    await connector.capture({
      idempotencyKey: key,
      credentials,
      options: null,
      payment: hint(1000),
      providerTransactionId: order,
      reference: 'c',
      amount: 600,
      currency: 'USD',
      final: false,
    });
    expect(fake.orders.get(order)!.captures).toHaveLength(1);
  });

  it('reports a void by the authorization, and a second void as done', async () => {
    const { order } = await paid(1000);
    const key = uuidv7();
    expect(
      await connector.void({
        idempotencyKey: key,
        credentials,
        options: null,
        payment: hint(1000),
        providerTransactionId: order,
        reference: 'v',
      }),
    ).toMatchObject({ status: 'succeeded' });
    expect(await connector.sync(sync('void', key, order, null))).toMatchObject({ status: 'voided' });
    expect(
      await connector.void({
        idempotencyKey: uuidv7(),
        credentials,
        options: null,
        payment: hint(1000),
        providerTransactionId: order,
        reference: 'v',
      }),
    ).toMatchObject({ status: 'succeeded' });
  });

  it('maps refund, void and approval events; an approval alone is no authorization', async () => {
    const { order } = await paid(1000);
    const capture = fake.settle(order);
    const refund = fake.event('PAYMENT.CAPTURE.REFUNDED', {
      id: '1JU0000001',
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '2.50' },
      links: [{ href: `${fake.url}/v2/payments/captures/${capture}`, rel: 'up', method: 'GET' }],
    });
    expect(await connector.parseWebhook(credentials, refund)).toMatchObject({
      status: 'accepted',
      events: [
        {
          actions: [
            {
              kind: 'refund_succeeded',
              providerTransactionId: order,
              providerReferenceId: '1JU0000001',
              amount: 250,
              currency: 'USD',
            },
          ],
        },
      ],
    });
    const voided = fake.event('PAYMENT.AUTHORIZATION.VOIDED', {
      id: 'AUTH1',
      status: 'VOIDED',
      amount: { currency_code: 'USD', value: '10.00' },
      supplementary_data: { related_ids: { order_id: order } },
    });
    expect(await connector.parseWebhook(credentials, voided)).toMatchObject({
      events: [{ actions: [{ kind: 'void_succeeded', providerTransactionId: order }] }],
    });
    const approvedEvent = fake.event('CHECKOUT.ORDER.APPROVED', {
      id: order,
      status: 'APPROVED',
      amount: { currency_code: 'USD', value: '10.00' },
    });
    const resolved = fake.event('CUSTOMER.DISPUTE.RESOLVED', {
      dispute_id: 'PP-D-1',
      dispute_amount: { currency_code: 'USD', value: '10.00' },
      dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
      disputed_transactions: [{ seller_transaction_id: capture }],
    });
    expect(await connector.parseWebhook(credentials, resolved)).toMatchObject({
      events: [
        {
          actions: [
            { kind: 'chargeback_won', providerTransactionId: order, providerReferenceId: 'PP-D-1', amount: 1000 },
          ],
        },
      ],
    });
    expect(await connector.parseWebhook(credentials, approvedEvent)).toMatchObject({
      status: 'accepted',
      events: [{ actions: [] }],
    });
  });
});

describe('errors', () => {
  it('reports a denied authorization as declined and one under review as pending', async () => {
    expect((await paid(2051)).done).toMatchObject({ status: 'declined', rawResponseCode: 'DENIED' });
    expect((await paid(2077)).done).toMatchObject({ status: 'pending' });
  });

  it('refuses an amount PayPal cannot take exactly, before calling it', async () => {
    const before = fake.requests.length;
    await expect(connector.authorize(request(150050, { currency: 'HUF' }))).rejects.toMatchObject({
      kind: 'invalid_request',
    });
    expect(fake.requests.length).toBe(before);
  });
});

describe('security', () => {
  it('refuses an event whose transmission is older than PayPal retries, or that lacks a signature header', async () => {
    const event = fake.event('PAYMENT.CAPTURE.COMPLETED', {
      id: 'C1',
      amount: { currency_code: 'USD', value: '1.00' },
    });
    const old = {
      ...event,
      headers: { ...event.headers, 'paypal-transmission-time': new Date(Date.now() - 5 * 86_400_000).toISOString() },
    };
    expect(await connector.parseWebhook(credentials, old)).toMatchObject({ status: 'rejected' });
    const unsigned = { ...event, headers: { ...event.headers, 'paypal-transmission-sig': undefined } };
    expect(await connector.parseWebhook(credentials, unsigned)).toMatchObject({ status: 'rejected' });
    expect(await connector.parseWebhook({ ...credentials, webhook_id: 'OTHERWEBHOOK' }, event)).toMatchObject({
      status: 'rejected',
    });
    expect(await connector.parseWebhook(credentials, event)).toMatchObject({ status: 'accepted' });
  });

  it('sends every money-moving POST with the attempt id as PayPal-Request-Id and never the secret in a call', async () => {
    await paid(1000);
    const posts = fake.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v2/'));
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) expect(post.headers['paypal-request-id']).toEqual(expect.any(String));
    for (const r of fake.requests.filter((q) => q.path !== '/v1/oauth2/token'))
      expect(JSON.stringify(r)).not.toContain(PAYPAL_FAKE_SECRET);
  });
});
