import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { card } from '../helpers/transactions.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';

/**
 * The full flow through our API with a stripe-card payment service against the local Stripe fake
 * (STRIPE_API_BASE_URL): create the service, authorize a card and a stored card, partial capture,
 * refund, void, a decline, a 3DS redirect and its return, a timeout reconciled, failover to
 * mock-card; then no card number, security code or secret key anywhere it could leak.
 */

const fake = new StripeFake();
const signing = 'whsec_flowsecret';
let t: TestApp;
let m: string;
let stripeId: string;

beforeAll(async () => {
  await fake.start();
  t = await buildTestApp({ STRIPE_API_BASE_URL: fake.url });
  m = await createMerchantAccount(t.deps);
  stripeId = await stripeService(m);
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

async function stripeService(merchantAccountId: string, key = fake.secretKey) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId,
    payload: {
      display_name: 'Stripe',
      payment_service_definition_id: 'stripe-card',
      fields: [
        { key: 'secret_key', value: key },
        { key: 'webhook_signing_secret', value: signing },
      ],
      accepted_currencies: ['USD', 'EUR', 'JPY', 'KWD'],
      accepted_countries: ['US', 'DE'],
      payment_method_tokenization_enabled: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const pay = (body: Record<string, unknown> = {}, merchantAccountId = m) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card('4242424242424242'), ...body },
  });
const post = (url: string, payload: Record<string, unknown> = {}) =>
  t.request({ method: 'POST', url, merchantAccountId: m, payload });

describe('happy', () => {
  it('authorizes a card, captures part of it and refunds part of the capture', async () => {
    const auth = await pay();
    expect(auth.statusCode, auth.body).toBe(201);
    const txn = auth.json();
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      payment_service: { id: stripeId },
      payment_service_transaction_id: expect.stringMatching(/^pi_/),
      cvv_response_code: 'match',
    });
    expect(fake.state.intents.get(txn.payment_service_transaction_id)).toMatchObject({
      capture_method: 'manual',
      amount: 1000,
      currency: 'usd',
    });
    const capture = await post(`/transactions/${txn.id}/capture`, { amount: 600 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(capture.json()).toMatchObject({
      status: 'succeeded',
      transaction: { status: 'capture_succeeded', captured_amount: 600 },
    });
    const refund = await post(`/transactions/${txn.id}/refunds`, { amount: 250 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 250 });
    expect(
      [...fake.state.refunds.values()].find((r) => r.payment_intent === txn.payment_service_transaction_id),
    ).toMatchObject({ amount: 250, status: 'succeeded' });
  });

  it('authorizes in a zero-decimal currency with the amount unchanged for Stripe', async () => {
    const txn = (await pay({ amount: 1500, currency: 'JPY' })).json();
    expect(txn.status).toBe('authorization_succeeded');
    expect(fake.state.intents.get(txn.payment_service_transaction_id)).toMatchObject({ amount: 1500, currency: 'jpy' });
  });

  it('authorizes a stored card', async () => {
    const stored = await t.request({
      method: 'POST',
      url: '/payment-methods',
      merchantAccountId: m,
      payload: { method: 'card', number: '5555555555554444', expiration_date: '12/40' },
    });
    expect(stored.statusCode, stored.body).toBe(201);
    const txn = await pay({ payment_method: { method: 'id', id: stored.json().id } });
    expect(txn.json()).toMatchObject({
      status: 'authorization_succeeded',
      payment_method: { id: stored.json().id, label: '4444' },
    });
  });

  it('voids an authorization', async () => {
    const txn = (await pay()).json();
    const voided = await post(`/transactions/${txn.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json()).toMatchObject({ status: 'succeeded', transaction: { status: 'authorization_voided' } });
    expect(fake.state.intents.get(txn.payment_service_transaction_id)).toMatchObject({ status: 'canceled' });
  });

  it("sends the buyer to Stripe's 3DS page, and the return (a sync) finds the payment authorized", async () => {
    const res = await pay({
      payment_method: card('4000000000003220', { redirect_url: 'https://merchant.example/back' }),
    });
    const txn = res.json();
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      payment_method: { approval_url: expect.stringContaining(`/3ds/${txn.payment_service_transaction_id}`) },
    });
    fake.completeAuthentication(txn.payment_service_transaction_id, true);
    const synced = await post(`/transactions/${txn.id}/sync`);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ status: 'authorization_succeeded' });
  });

  it("the 3DS return is settled by Stripe's payment_intent.amount_capturable_updated webhook", async () => {
    const txn = (
      await pay({ payment_method: card('4000000000003220', { redirect_url: 'https://merchant.example/back' }) })
    ).json();
    expect(txn.status).toBe('buyer_approval_pending');
    fake.completeAuthentication(txn.payment_service_transaction_id, true);
    const intent = fake.state.intents.get(txn.payment_service_transaction_id)!;
    const { body, signature } = StripeFake.signedEvent(signing, {
      id: `evt_${txn.id}`,
      type: 'payment_intent.amount_capturable_updated',
      data: { object: { ...intent, latest_charge: null } },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: `/merchant-accounts/${m}/payment-services/${stripeId}/webhooks`,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      { kind: 'authorization_succeeded', transaction_id: txn.id, result: 'applied' },
    ]);
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json(),
    ).toMatchObject({ status: 'authorization_succeeded' });
  });

  it('a rotated webhook signing secret holds from the next webhook: the old one is refused, the new one accepted', async () => {
    const m2 = await createMerchantAccount(t.deps);
    const id = await stripeService(m2);
    const txn = (
      await pay({ payment_method: card('4000000000003220', { redirect_url: 'https://merchant.example/back' }) }, m2)
    ).json();
    fake.completeAuthentication(txn.payment_service_transaction_id, true);
    const intent = fake.state.intents.get(txn.payment_service_transaction_id)!;
    const deliver = (secret: string, eventId: string) => {
      const { body, signature } = StripeFake.signedEvent(secret, {
        id: eventId,
        type: 'payment_intent.amount_capturable_updated',
        data: { object: { ...intent, latest_charge: null } },
      });
      return t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m2}/payment-services/${id}/webhooks`,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload: body,
      });
    };
    // The first delivery reads the service (and fills the process's cache of active services).
    expect((await deliver('whsec_wrong', `evt_a_${txn.id}`)).statusCode).toBe(401);
    const rotated = await t.request({
      method: 'PUT',
      url: `/payment-services/${id}`,
      merchantAccountId: m2,
      payload: { fields: [{ key: 'webhook_signing_secret', value: 'whsec_rotated' }] },
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect((await deliver(signing, `evt_b_${txn.id}`)).statusCode).toBe(401);
    const res = await deliver('whsec_rotated', `evt_c_${txn.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      { kind: 'authorization_succeeded', transaction_id: txn.id, result: 'applied' },
    ]);
  });

  it('stores a card at Stripe as a payment service token (a Customer with its PaymentMethod)', async () => {
    const stored = (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: m,
        payload: { method: 'card', number: '4242424242424242', expiration_date: '12/40' },
      })
    ).json();
    const res = await post(`/payment-methods/${stored.id}/payment-service-tokens`, {
      payment_service_id: stripeId,
      redirect_url: 'https://merchant.example/back',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'succeeded', payment_service_id: stripeId });
    // The token names a Customer at Stripe that holds the card's PaymentMethod (attached to it: a
    // PaymentMethod on no Customer cannot be used again).
    const [customer, paymentMethod] = String(res.json().token).split(':');
    expect(fake.state.customers.get(customer!)).toMatchObject({ id: customer });
    expect(fake.state.paymentMethods.get(paymentMethod!)).toMatchObject({ last4: '4242', customer });
  });

  it('fails over from an unreachable Stripe to mock-card by the routing rule', async () => {
    const other = await createMerchantAccount(t.deps);
    const stripe = await stripeService(other);
    const mock = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: other,
      payload: {
        display_name: 'Mock',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'm1' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    });
    const rule = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/route-transaction/rules',
      merchantAccountId: other,
      payload: { conditions: [], outcome: { payment_service_ids: [stripe, mock.json().id] } },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    fake.failNext({ status: 429 }, 1, '/v1/payment_methods');
    const txn = (await pay({}, other)).json();
    expect(txn).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: mock.json().id } });
  });
});

describe('errors', () => {
  it("a decline keeps Stripe's code and maps it to ours", async () => {
    const txn = (await pay({ payment_method: card('4000000000009995') })).json();
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      raw_response_code: 'insufficient_funds',
      raw_response_description: 'Your card has insufficient funds.',
    });
  });

  it('a lost answer leaves the transaction processing, and reconciliation (sync) finds it authorized by the attempt id', async () => {
    fake.failNext({ drop: true }, 2, '/v1/payment_intents');
    const txn = (await pay()).json();
    expect(txn.status).toBe('processing');
    const synced = await post(`/transactions/${txn.id}/sync`);
    expect(synced.json()).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^pi_/),
    });
  });

  it('the reconciliation job settles a lost answer too (no merchant action needed)', async () => {
    fake.failNext({ drop: true }, 2, '/v1/payment_intents');
    const txn = (await pay({ amount: 1300 })).json();
    expect(txn.status).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 24 * 3600_000));
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json(),
    ).toMatchObject({ status: 'authorization_succeeded' });
  });

  it('refuses credentials Stripe refuses, naming the field', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Bad',
        payment_service_definition_id: 'stripe-card',
        fields: [{ key: 'secret_key', value: 'sk_test_notthekey' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('secret_key');
    expect(res.body).not.toContain('sk_test_notthekey');
  });
});

describe('security', () => {
  it('no card number, security code or secret key in logs, answers or stored provider answers', async () => {
    const txn = (await pay({ payment_method: card('4000000000000002') })).json();
    expect(txn.status).toBe('authorization_declined');
    const logs = t.logs.join('\n');
    for (const secret of ['4242424242424242', '4000000000000002', '5555555555554444', fake.secretKey, signing])
      expect(logs).not.toContain(secret);
    expect(logs).not.toMatch(/"security_code":"123"|cvc=123/);
    const stored = await sql<{
      body: string;
    }>`SELECT row_to_json(a)::text AS body FROM transaction_attempts a WHERE merchant_account_id = ${m}`.execute(
      t.deps.db,
    );
    const events = await sql<{
      body: string;
    }>`SELECT row_to_json(e)::text AS body FROM transaction_events e WHERE merchant_account_id = ${m}`.execute(
      t.deps.db,
    );
    const services = await sql<{
      body: string;
    }>`SELECT row_to_json(s)::text AS body FROM payment_services s WHERE merchant_account_id = ${m}`.execute(t.deps.db);
    for (const row of [...stored.rows, ...events.rows, ...services.rows]) {
      expect(row.body).not.toContain('4242424242424242');
      expect(row.body).not.toContain(fake.secretKey);
      expect(row.body).not.toContain(signing);
    }
    const service = await t.request({ method: 'GET', url: `/payment-services/${stripeId}`, merchantAccountId: m });
    expect(service.body).not.toContain(fake.secretKey);
  });
});
