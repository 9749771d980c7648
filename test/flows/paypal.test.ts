import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import {
  PAYPAL_FAKE_CLIENT_ID,
  PAYPAL_FAKE_SECRET,
  PAYPAL_FAKE_WEBHOOK_ID,
  startPaypalFake,
  type PaypalFake,
} from '../fakes/paypal-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { createLink, openPage } from '../helpers/payment-links.ts';

/**
 * The whole PayPal flow through our API with a payment service of the `paypal-paypal` definition,
 * against the local PayPal fake: the service (credentials checked at PayPal), a payment approved on
 * PayPal's page and completed on the buyer's return, two partial captures, refunds, a void, a
 * buyer's cancel, a decline, shipping options, and webhooks verified by PayPal; the client secret
 * nowhere we answer, keep or log.
 */
let t: TestApp;
let fake: PaypalFake;
const bodies: string[] = [];

beforeAll(async () => {
  fake = await startPaypalFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `paypal-paypal=${fake.url}` });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const fields = (overrides: Record<string, string> = {}) =>
  Object.entries({
    client_id: PAYPAL_FAKE_CLIENT_ID,
    client_secret: PAYPAL_FAKE_SECRET,
    webhook_id: PAYPAL_FAKE_WEBHOOK_ID,
    ...overrides,
  }).map(([key, value]) => ({ key, value }));

async function createService(m: string, overrides: Record<string, string> = {}) {
  const payload = {
    display_name: 'PayPal',
    payment_service_definition_id: 'paypal-paypal',
    fields: fields(overrides),
    accepted_currencies: ['USD', 'JPY'],
    accepted_countries: ['US', 'JP'],
  };
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  bodies.push(res.body);
  return res;
}

async function merchantWithPaypal() {
  const m = await createMerchantAccount(t.deps);
  const res = await createService(m);
  expect(res.statusCode, res.body).toBe(201);
  return { m, service: res.json() };
}

async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

async function pay(m: string, body: Record<string, unknown> = {}) {
  const currency = (body.currency as string | undefined) ?? 'USD';
  const res = await call(m, 'POST', '/transactions', {
    amount: 1000,
    currency,
    country: 'US',
    payment_method: { method: 'paypal', country: 'US', currency, redirect_url: 'https://shop.example/done' },
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The buyer on PayPal's page (approve, or cancel), then back at our return address; the page we answer. */
async function buyer(txn: { payment_method: { approval_url: string } }, decision: 'approve' | 'cancel' = 'approve') {
  const page = await fetch(`${txn.payment_method.approval_url}&decision=${decision}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get('location')!);
  expect(back.pathname).toMatch(/^\/connector-returns\//);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

async function approved(m: string, body: Record<string, unknown> = {}) {
  const txn = await pay(m, body);
  const returned = await buyer(txn);
  expect(returned.statusCode, returned.body).toBe(200);
  return (await call(m, 'GET', `/transactions/${txn.id}`)).json();
}

describe('happy', () => {
  it('creates the payment service after PayPal accepted the client credentials and the webhook, secret masked', async () => {
    const { service } = await merchantWithPaypal();
    expect(service).toMatchObject({ payment_service_definition_id: 'paypal-paypal', method: 'paypal', active: true });
    expect(JSON.stringify(service)).not.toContain(PAYPAL_FAKE_SECRET);
    expect(fake.requests.some((r) => r.path === '/v1/oauth2/token')).toBe(true);
    expect(fake.requests.some((r) => r.path === `/v1/notifications/webhooks/${PAYPAL_FAKE_WEBHOOK_ID}`)).toBe(true);
  });

  it('offers paypal among the payment options only where the service takes the currency', async () => {
    const { m } = await merchantWithPaypal();
    const options = async (currency: string) =>
      (await call(m, 'POST', '/payment-options', { currency, country: 'US', amount: 1000 })).json().items;
    expect(await options('USD')).toContainEqual(
      expect.objectContaining({ method: 'paypal', mode: 'redirect', label: 'PayPal' }),
    );
    expect((await options('EUR')).map((o: { method: string }) => o.method)).not.toContain('paypal');
  });

  it("waits for the buyer on PayPal's page, authorizes the order on the buyer's return, and sends the buyer on", async () => {
    const { m } = await merchantWithPaypal();
    const txn = await pay(m);
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      method: 'paypal',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/checkoutnow?token=`) },
    });
    const order = fake.bodies('/v2/checkout/orders').at(-1)!;
    expect(order).toMatchObject({
      intent: 'AUTHORIZE',
      purchase_units: [{ amount: { currency_code: 'USD', value: '10.00' } }],
      payment_source: { paypal: { experience_context: { user_action: 'PAY_NOW' } } },
    });
    const returned = await buyer(txn);
    expect(returned.statusCode).toBe(200);
    expect(returned.headers.refresh).toContain(
      `https://shop.example/done?transaction_id=${txn.id}&transaction_status=authorization_succeeded`,
    );
    const after = (await call(m, 'GET', `/transactions/${txn.id}`)).json();
    expect(after).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 1000 });
    expect(fake.orders.get(after.payment_service_transaction_id)).toMatchObject({
      status: 'COMPLETED',
      authorizations: [{ status: 'CREATED' }],
    });
    // A reload of the return page changes nothing and authorizes nothing twice.
    expect((await buyer(txn)).statusCode).toBe(200);
    expect(fake.orders.get(after.payment_service_transaction_id)!.authorizations).toHaveLength(1);
  });

  it('captures in two parts (final_capture false, then true) and refunds part of one capture', async () => {
    const { m } = await merchantWithPaypal();
    const txn = await approved(m);
    const first = await call(m, 'POST', `/transactions/${txn.id}/capture`, { amount: 300, final: false });
    expect(first.statusCode, first.body).toBe(200);
    expect(fake.bodies('/capture').at(-1)).toMatchObject({
      amount: { currency_code: 'USD', value: '3.00' },
      final_capture: false,
    });
    const second = await call(m, 'POST', `/transactions/${txn.id}/capture`, { amount: 400 });
    expect(second.statusCode, second.body).toBe(200);
    expect(fake.bodies('/capture').at(-1)).toMatchObject({ final_capture: true });
    expect((await call(m, 'GET', `/transactions/${txn.id}`)).json()).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 700,
    });
    const order = fake.orders.get(txn.payment_service_transaction_id)!;
    expect(order.authorizations[0]!.status).toBe('CAPTURED');
    expect(order.captures.map((c) => c.amount.value)).toEqual(['3.00', '4.00']);
    const refund = await call(m, 'POST', `/transactions/${txn.id}/refunds`, { amount: 250 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 250 });
    expect(order.refunds).toHaveLength(1);
    expect(order.captures[0]!.status).toBe('PARTIALLY_REFUNDED');
    // More than any one capture has left: PayPal refunds one capture at a time.
    const tooMuch = await call(m, 'POST', `/transactions/${txn.id}/refunds`, { amount: 420 });
    expect(tooMuch.json()).toMatchObject({ status: 'declined' });
    expect(order.refunds).toHaveLength(1);
  });

  it('voids an authorization at PayPal', async () => {
    const { m } = await merchantWithPaypal();
    const txn = await approved(m);
    const voided = await call(m, 'POST', `/transactions/${txn.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json()).toMatchObject({ type: 'transaction-void', status: 'succeeded' });
    expect((await call(m, 'GET', `/transactions/${txn.id}`)).json()).toMatchObject({ status: 'authorization_voided' });
    expect(fake.orders.get(txn.payment_service_transaction_id)!.authorizations[0]!.status).toBe('VOIDED');
  });

  it("sends PayPal the shipping options of the connection options with the selected one's price in the breakdown", async () => {
    const { m } = await merchantWithPaypal();
    const shipping = {
      options: [
        {
          id: 'std',
          label: 'Standard',
          selected: true,
          type: 'SHIPPING',
          amount: { currency_code: 'JPY', value: '500' },
        },
        { id: 'store', label: 'Pick up in store', selected: false, type: 'PICKUP_IN_STORE' },
      ],
    };
    const txn = await pay(m, {
      amount: 3500,
      currency: 'JPY',
      connection_options: { 'paypal-paypal': { shipping } },
    });
    expect(txn.status).toBe('buyer_approval_pending');
    expect(fake.bodies('/v2/checkout/orders').at(-1)!.purchase_units[0]).toMatchObject({
      amount: {
        currency_code: 'JPY',
        value: '3500',
        breakdown: { item_total: { value: '3000' }, shipping: { value: '500' } },
      },
      shipping,
    });
  });
  it("pays a payment link with PayPal: the page's PayPal button, PayPal's page, and back to the merchant", async () => {
    const { m } = await merchantWithPaypal();
    const link = await createLink(t, m, { return_url: 'https://shop.example/thanks' });
    const { res, path, token } = await openPage(t, link.url);
    expect(res.body).toContain('data-method="paypal"');
    const outcome = (
      await t.app.inject({
        method: 'POST',
        url: `${path}/payments`,
        headers: { 'x-payment-link-token': token },
        payload: { method: 'paypal' },
      })
    ).json();
    expect(outcome).toMatchObject({ outcome: 'pending', transaction_status: 'buyer_approval_pending' });
    expect(outcome.next_url).toContain(`${fake.url}/checkoutnow?token=`);
    const returned = await buyer({ payment_method: { approval_url: outcome.next_url } });
    const onward = new URL(/url=(.*)$/.exec(returned.headers.refresh as string)![1]!);
    expect(onward.pathname).toBe(`${path}/return`);
    const back = await t.app.inject({ method: 'GET', url: `${onward.pathname}${onward.search}` });
    expect(back.headers.refresh).toContain('https://shop.example/thanks?transaction_id=');
    const txn = (await call(m, 'GET', `/transactions/${outcome.transaction_id}`)).json();
    expect(txn).toMatchObject({ method: 'paypal', status: 'authorization_succeeded' });
  });

  it('completes an order the buyer approved without coming back: by a sync now, or by reconciliation at the deadline', async () => {
    const { m } = await merchantWithPaypal();
    const synced = await pay(m);
    fake.approve(synced.payment_service_transaction_id);
    const res = await call(m, 'POST', `/transactions/${synced.id}/sync`);
    expect(res.statusCode, res.body).toBe(200);
    expect((await call(m, 'GET', `/transactions/${synced.id}`)).json()).toMatchObject({
      status: 'authorization_succeeded',
    });
    const later = await pay(m);
    fake.approve(later.payment_service_transaction_id);
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 2 * 86_400_000));
    expect((await call(m, 'GET', `/transactions/${later.id}`)).json()).toMatchObject({
      status: 'authorization_succeeded',
    });
  });
});

describe('errors', () => {
  it('refuses credentials PayPal does not accept, naming the field', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await createService(m, { client_secret: 'wrong-secret-value' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('client_secret');
    const webhook = await createService(m, { webhook_id: 'NOSUCHWEBHOOK1' });
    expect(webhook.statusCode).toBe(400);
    expect(webhook.body).toContain('webhook_id');
  });

  it('declines a payment whose funding PayPal refuses on authorization (INSTRUMENT_DECLINED)', async () => {
    const { m } = await merchantWithPaypal();
    const txn = await approved(m, { amount: 2005 });
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'do_not_honor',
      raw_response_code: 'INSTRUMENT_DECLINED',
    });
  });

  it("fails a payment whose order's answer was lost: found by its PayPal-Request-Id, its buyer never got the page", async () => {
    const { m } = await merchantWithPaypal();
    const res = await call(m, 'POST', '/transactions', {
      amount: 2409,
      currency: 'USD',
      country: 'US',
      payment_method: { method: 'paypal', country: 'US', currency: 'USD', redirect_url: 'https://shop.example/done' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const txn = res.json();
    expect(txn.status).toBe('processing');
    const creates = fake.bodies('/v2/checkout/orders').length;
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    const after = (await call(m, 'GET', `/transactions/${txn.id}`)).json();
    expect(after).toMatchObject({ status: 'authorization_failed', error_code: 'service_network_error' });
    // The same request id: PayPal's replay, not a second order.
    expect(fake.bodies('/v2/checkout/orders').length).toBe(creates + 1);
    const orders = [...fake.orders.values()].filter((o) => o.minor === 2409);
    expect(orders).toHaveLength(1);
    expect(after.payment_service_transaction_id ?? orders[0]!.id).toBe(orders[0]!.id);
  });

  it('declines a payment the buyer cancelled on PayPal, with no authorization made', async () => {
    const { m } = await merchantWithPaypal();
    const txn = await pay(m);
    const returned = await buyer(txn, 'cancel');
    expect(returned.statusCode).toBe(200);
    const after = (await call(m, 'GET', `/transactions/${txn.id}`)).json();
    expect(after).toMatchObject({ status: 'authorization_declined', raw_response_code: 'PAYER_CANCELLED' });
    expect(fake.orders.get(after.payment_service_transaction_id)!.authorizations).toEqual([]);
  });
});

describe('security', () => {
  it('applies a dispute webhook that PayPal verified, once; refuses a forged one with 401 and no change', async () => {
    const { m, service } = await merchantWithPaypal();
    const txn = await approved(m);
    expect((await call(m, 'POST', `/transactions/${txn.id}/capture`, {})).statusCode).toBe(200);
    const capture = fake.orders.get(txn.payment_service_transaction_id)!.captures[0]!.id;
    const resource = {
      dispute_id: 'PP-D-4012',
      reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
      status: 'OPEN',
      dispute_amount: { currency_code: 'USD', value: '10.00' },
      disputed_transactions: [{ seller_transaction_id: capture }],
    };
    const deliver = (request: ReturnType<PaypalFake['event']>) =>
      t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m}/payment-services/${service.id}/webhooks`,
        headers: request.headers as Record<string, string>,
        payload: request.rawBody,
      });
    const events = async () =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM inbound_webhook_events WHERE payment_service_id = ${service.id}`.execute(
          t.deps.db,
        )
      ).rows[0]!.n;
    const forged = await deliver(fake.event('CUSTOMER.DISPUTE.CREATED', resource, true));
    expect(forged.statusCode).toBe(401);
    expect(await events()).toBe(0);
    expect((await call(m, 'GET', `/transactions/${txn.id}`)).json()).toMatchObject({ disputed: false });
    const signed = fake.event('CUSTOMER.DISPUTE.CREATED', resource);
    const first = await deliver(signed);
    expect(first.statusCode, first.body).toBeLessThan(300);
    expect((await call(m, 'GET', `/transactions/${txn.id}`)).json()).toMatchObject({ disputed: true });
    const replay = await deliver(signed);
    expect(replay.statusCode).toBeLessThan(300);
    expect(replay.body).toContain('"duplicate":true');
    expect(await events()).toBe(1);
  });

  it('keeps the client secret out of every answer, log line and table', async () => {
    await expectNoSecrets(t, bodies, [PAYPAL_FAKE_SECRET]);
  });
});
