import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDuePayouts } from '../../src/modules/payouts/reconcile-payouts.service.ts';
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
import { addBuyer, payoutCard, postPayout, storeCard } from '../helpers/payouts.ts';

/**
 * Payouts to PayPal accounts through our API, against the local PayPal fake: a PayPal payment with
 * `store: true` stores the payer's PayPal account (its payer id; the e-mail masked), `POST /payouts`
 * with that stored method sends a Payouts API batch to the payer id, and PayPal's signed
 * PAYMENT.PAYOUTS-ITEM webhook (or reconciliation) settles it; a forged webhook changes nothing; a
 * card cannot be paid out through PayPal.
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

async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

async function merchantWithPaypal() {
  const m = await createMerchantAccount(t.deps);
  const fields = {
    client_id: PAYPAL_FAKE_CLIENT_ID,
    client_secret: PAYPAL_FAKE_SECRET,
    webhook_id: PAYPAL_FAKE_WEBHOOK_ID,
  };
  const res = await call(m, 'POST', '/payment-services', {
    display_name: 'PayPal',
    payment_service_definition_id: 'paypal-paypal',
    fields: Object.entries(fields).map(([key, value]) => ({ key, value })),
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
  });
  expect(res.statusCode, res.body).toBe(201);
  return { m, service: res.json() as { id: string } };
}

/** A PayPal payment the buyer approves on PayPal's page and returns from; the transaction after the return. */
async function approvedPayment(m: string, body: Record<string, unknown> = {}) {
  const res = await call(m, 'POST', '/transactions', {
    amount: 1000,
    currency: 'USD',
    country: 'US',
    payment_method: { method: 'paypal', country: 'US', currency: 'USD', redirect_url: 'https://shop.example/done' },
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  const page = await fetch(`${res.json().payment_method.approval_url}&decision=approve`, { redirect: 'manual' });
  const back = new URL(page.headers.get('location')!);
  expect((await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(200);
  return (await call(m, 'GET', `/transactions/${res.json().id}`)).json();
}

/** A merchant with a PayPal service and a buyer's PayPal account stored by an approved payment. */
async function storedPaypalAccount() {
  const { m, service } = await merchantWithPaypal();
  const buyerId = await addBuyer(t, m);
  const txn = await approvedPayment(m, { store: true, buyer_id: buyerId });
  expect(txn).toMatchObject({ status: 'authorization_succeeded', payment_method: { id: expect.any(String) } });
  return { m, service, buyerId, paymentMethodId: txn.payment_method.id as string };
}

const deliver = (m: string, serviceId: string, request: ReturnType<PaypalFake['event']>) =>
  t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${serviceId}/webhooks`,
    headers: request.headers as Record<string, string>,
    payload: request.rawBody,
  });

const inboundEvents = async (serviceId: string) =>
  (
    await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM inbound_webhook_events WHERE payment_service_id = ${serviceId}`.execute(t.deps.db)
  ).rows[0]!.n;

describe('happy', () => {
  it("stores the payer's PayPal account of an approved payment with store: true: the payer id kept, the e-mail masked", async () => {
    const { m, buyerId, paymentMethodId } = await storedPaypalAccount();
    const method = (await call(m, 'GET', `/payment-methods/${paymentMethodId}`)).json();
    expect(method).toMatchObject({
      method: 'paypal',
      mode: 'redirect',
      status: 'succeeded',
      label: 'b***@e***.com',
      buyer: { id: buyerId },
    });
    const row = await t.deps.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', paymentMethodId)
      .executeTakeFirstOrThrow();
    expect(row.provider_account_id).toBe('FAKEPAYER7Q3W');
    // The full address is never kept.
    expect(JSON.stringify(row)).not.toContain('buyer@example.com');
  });

  it('stores nothing for a PayPal payment without store', async () => {
    const { m } = await merchantWithPaypal();
    const txn = await approvedPayment(m);
    expect(txn.status).toBe('authorization_succeeded');
    expect(txn.payment_method.id ?? null).toBeNull();
  });

  it("pays out to the stored PayPal account (a Payouts batch to the payer id), pending until PayPal's signed webhook settles it once", async () => {
    const { m, service, paymentMethodId } = await storedPaypalAccount();
    const res = await postPayout(t, m, service.id, {
      amount: 2500,
      payment_method: { method: 'id', id: paymentMethodId },
    });
    bodies.push(res.body);
    expect(res.statusCode, res.body).toBe(201);
    const payout = res.json();
    expect(payout).toMatchObject({
      status: 'pending',
      payment_method: { id: paymentMethodId, method: 'paypal', label: 'b***@e***.com' },
      payment_service_payout_id: expect.any(String),
    });
    const sent = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payments/payouts').at(-1)!;
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({
      sender_batch_header: { recipient_type: 'PAYPAL_ID' },
      items: [{ recipient_type: 'PAYPAL_ID', receiver: 'FAKEPAYER7Q3W', amount: { value: '25.00', currency: 'USD' } }],
    });
    // The attempt id is PayPal's idempotency key twice over: sender_batch_id and PayPal-Request-Id.
    expect(sent.headers['paypal-request-id']).toBe(body.sender_batch_header.sender_batch_id);
    expect(body.items[0].sender_item_id).toBe(body.sender_batch_header.sender_batch_id);

    const before = await inboundEvents(service.id);
    const forged = await deliver(m, service.id, fake.completePayout(payout.payment_service_payout_id, true));
    expect(forged.statusCode).toBe(401);
    expect(await inboundEvents(service.id)).toBe(before);
    expect((await call(m, 'GET', `/payouts/${payout.id}`)).json()).toMatchObject({ status: 'pending' });

    const item = fake.payoutBatches.get(payout.payment_service_payout_id)!.items[0]!;
    const signed = fake.event('PAYMENT.PAYOUTS-ITEM.SUCCEEDED', { ...item, minor: undefined });
    const first = await deliver(m, service.id, signed);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().actions).toEqual([
      { kind: 'payout_succeeded', transaction_id: null, payout_id: payout.id, result: 'applied' },
    ]);
    expect((await call(m, 'GET', `/payouts/${payout.id}`)).json()).toMatchObject({ status: 'succeeded' });
    const replay = await deliver(m, service.id, signed);
    expect(replay.json()).toMatchObject({ duplicate: true });
  });

  it('reconciles a pending PayPal payout by its batch when no webhook comes', async () => {
    const { m, service, paymentMethodId } = await storedPaypalAccount();
    const res = await postPayout(t, m, service.id, { payment_method: { method: 'id', id: paymentMethodId } });
    expect(res.json()).toMatchObject({ status: 'pending' });
    await reconcileDuePayouts(t.deps, new Date(Date.now() + 3600_000));
    expect((await call(m, 'GET', `/payouts/${res.json().id}`)).json()).toMatchObject({ status: 'pending' });
    fake.completePayout(res.json().payment_service_payout_id);
    await reconcileDuePayouts(t.deps, new Date(Date.now() + 3 * 3600_000));
    expect((await call(m, 'GET', `/payouts/${res.json().id}`)).json()).toMatchObject({ status: 'succeeded' });
  });

  it('finds a payout whose answer was lost by sending it again under the same sender_batch_id (paid once)', async () => {
    const { m, service, paymentMethodId } = await storedPaypalAccount();
    const res = await postPayout(t, m, service.id, {
      amount: 3408,
      payment_method: { method: 'id', id: paymentMethodId },
    });
    expect(res.json()).toMatchObject({ status: 'pending', payment_service_payout_id: null });
    await reconcileDuePayouts(t.deps, new Date(Date.now() + 3600_000));
    const found = (await call(m, 'GET', `/payouts/${res.json().id}`)).json();
    expect(found).toMatchObject({ status: 'pending', payment_service_payout_id: expect.any(String) });
    const batches = [...fake.payoutBatches.values()].filter((b) => b.items.some((i) => i.minor === 3408));
    expect(batches.filter((b) => b.id === found.payment_service_payout_id)).toHaveLength(1);
  });
});

describe('errors', () => {
  it('answers a payout PayPal blocks as declined, by its webhook, with a standardized code', async () => {
    const { m, service, paymentMethodId } = await storedPaypalAccount();
    const res = await postPayout(t, m, service.id, {
      amount: 3005,
      payment_method: { method: 'id', id: paymentMethodId },
    });
    const delivered = await deliver(m, service.id, fake.completePayout(res.json().payment_service_payout_id));
    expect(delivered.statusCode, delivered.body).toBe(200);
    expect((await call(m, 'GET', `/payouts/${res.json().id}`)).json()).toMatchObject({ status: 'declined' });
    const row = await t.deps.db
      .selectFrom('payouts')
      .select(['error_code', 'raw_response_code'])
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ error_code: 'blocked_by_risk_rules', raw_response_code: 'RISK_DECLINE' });
  });

  it('refuses a payout to a card, stored or not, through a PayPal service, saying what to send instead', async () => {
    const { m, service } = await merchantWithPaypal();
    const cardId = await storeCard(t, m);
    for (const method of [{ method: 'id', id: cardId }, payoutCard()]) {
      const res = await postPayout(t, m, service.id, { payment_method: method });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        details: [
          {
            pointer: '/payment_method',
            type: 'payouts_not_supported',
            message: expect.stringContaining('pays out to paypal accounts only'),
          },
        ],
      });
    }
    expect(fake.requests.filter((r) => r.path === '/v1/payments/payouts' && r.body.includes(cardId))).toHaveLength(0);
  });

  it('refuses a payout to a stored PayPal account through a card service', async () => {
    const { m, paymentMethodId } = await storedPaypalAccount();
    const card = await call(m, 'POST', '/payment-services', {
      display_name: 'Cards',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'cards' }],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    });
    expect(card.statusCode, card.body).toBe(201);
    const res = await postPayout(t, m, card.json().id, { payment_method: { method: 'id', id: paymentMethodId } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({
      type: 'payouts_not_supported',
      message: expect.stringContaining('cards only'),
    });
  });
});

describe('security', () => {
  it('keeps the client secret and the full e-mail out of every answer', async () => {
    await expectNoSecrets(t, bodies, [PAYPAL_FAKE_SECRET]);
    for (const body of bodies) expect(body).not.toContain('buyer@example.com');
  });
});
