import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDuePayouts } from '../../src/modules/payouts/reconcile-payouts.service.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import {
  CHECKOUT_FAKE_ACCOUNT,
  CHECKOUT_FAKE_CHANNEL,
  CHECKOUT_FAKE_KEY,
  startCheckoutFake,
  type CheckoutFake,
} from '../fakes/checkout-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { payoutCard, postPayout } from '../helpers/payouts.ts';

/**
 * The whole flow through our API with a payment service of the `checkout-card` definition, against
 * the local Checkout.com fake: the service (the key checked at Checkout.com), an authorization,
 * partial captures, a refund, a void, a decline, Checkout.com's 3DS page and the buyer's return, a
 * lost answer reconciled by the attempt id, `Cko-Signature` webhooks (a forged one refused, a
 * replay applied once), card payouts (paid, declined, pending then reconciled); the secret key,
 * the webhook key and the card number nowhere we answer, keep or log.
 */
let t: TestApp;
let fake: CheckoutFake;
const PAN = '4242424242424242';
const SIGNATURE_KEY = 'checkout-flow-signature-key';
const bodies: string[] = [];

beforeAll(async () => {
  fake = await startCheckoutFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `checkout-card=${fake.baseUrl}` });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const fields = (overrides: Record<string, string> = {}) =>
  Object.entries({
    secret_key: CHECKOUT_FAKE_KEY,
    processing_channel_id: CHECKOUT_FAKE_CHANNEL,
    webhook_signature_key: SIGNATURE_KEY,
    three_ds_enabled: 'true',
    multi_capture_enabled: 'true',
    ...overrides,
  }).map(([key, value]) => ({ key, value }));

async function merchantWithCheckout(overrides: Record<string, string> = {}) {
  const m = await createMerchantAccount(t.deps);
  // Webhook snapshots are written only for a subscription: the leak scan reads them too.
  await subscribeToEvents(t, m);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Checkout.com',
      payment_service_definition_id: 'checkout-card',
      fields: fields(overrides),
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'GB'],
    },
  });
  bodies.push(res.body);
  return { m, res, service: res.json() };
}

const card = (extra: Record<string, unknown> = {}) => ({
  method: 'card',
  number: PAN,
  expiration_date: '03/30',
  security_code: '100',
  ...extra,
});
const post = async (m: string, url: string, payload: object = {}) => {
  const res = await t.request({ method: 'POST', url, merchantAccountId: m, payload });
  bodies.push(res.body);
  return res;
};
const get = async (m: string, url: string) => {
  const res = await t.request({ method: 'GET', url, merchantAccountId: m });
  bodies.push(res.body);
  return res.json();
};
async function paid(m: string, body: Record<string, unknown> = {}) {
  const res = await post(m, '/transactions', {
    amount: 1000,
    currency: 'USD',
    country: 'US',
    payment_method: card(),
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
const deliver = (m: string, serviceId: string, signed: { headers: Record<string, string>; rawBody: Buffer }) =>
  t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${serviceId}/webhooks`,
    headers: signed.headers,
    payload: signed.rawBody,
  });

describe('happy', () => {
  it('creates the payment service after Checkout.com accepted the key, with the secrets masked', async () => {
    const { res, service } = await merchantWithCheckout();
    expect(res.statusCode, res.body).toBe(201);
    expect(service).toMatchObject({ payment_service_definition_id: 'checkout-card', active: true });
    expect(res.body).not.toContain(CHECKOUT_FAKE_KEY);
    expect(res.body).not.toContain(SIGNATURE_KEY);
    expect(fake.requests.some((r) => r.method === 'GET' && r.path.startsWith('/payments?reference='))).toBe(true);
  });

  it('authorizes a card with capture false, the attempt id as Cko-Idempotency-Key and reference, and captures in two parts', async () => {
    const { m } = await merchantWithCheckout();
    const txn = await paid(m);
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^pay_/),
      cvv_response_code: 'match',
      auth_response_code: '770687',
      scheme_transaction_id: '114041543271234',
    });
    const sent = fake.requests.filter((r) => r.method === 'POST' && r.path === '/payments').at(-1)!;
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({
      capture: false,
      amount: 1000,
      currency: 'USD',
      processing_channel_id: CHECKOUT_FAKE_CHANNEL,
    });
    expect(sent.headers['cko-idempotency-key']).toBe(body.reference);
    expect(sent.headers.authorization).toBe(`Bearer ${CHECKOUT_FAKE_KEY}`);
    const first = await post(m, `/transactions/${txn.id}/capture`, { amount: 400, final: false });
    expect(first.statusCode, first.body).toBe(200);
    expect(fake.bodies('/captures').at(-1)).toMatchObject({ amount: 400, capture_type: 'NonFinal' });
    // Checkout.com accepted it (202): pending until its webhook or reconciliation.
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ captured_amount: 400 });
    const second = await post(m, `/transactions/${txn.id}/capture`, { amount: 600 });
    expect(second.statusCode, second.body).toBe(200);
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 1000,
    });
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 300 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(fake.bodies('/refunds').at(-1)).toMatchObject({ amount: 300 });
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ refunded_amount: 300 });
  });

  it("voids an authorization, settled by Checkout.com's signed payment_voided webhook once; a forged one is 401 and changes nothing", async () => {
    const { m, service } = await merchantWithCheckout();
    const txn = await paid(m);
    expect((await post(m, `/transactions/${txn.id}/void`)).statusCode).toBe(200);
    const payment = txn.payment_service_transaction_id;
    const event = fake.webhook('payment_voided', { id: payment, amount: 1000, currency: 'USD' }, SIGNATURE_KEY);
    const forged = fake.webhook('payment_voided', { id: payment, amount: 1000, currency: 'USD' }, 'not-the-key');
    expect((await deliver(m, service.id, forged)).statusCode).toBe(401);
    expect((await get(m, `/transactions/${txn.id}`)).status).not.toBe('authorization_voided');
    const res = await deliver(m, service.id, event);
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ status: 'authorization_voided' });
    expect((await deliver(m, service.id, event)).statusCode).toBeLessThan(300);
    const old = fake.webhook('payment_voided', { id: payment }, SIGNATURE_KEY, {
      createdOn: new Date(Date.now() - 4 * 24 * 3600_000).toISOString(),
    });
    expect((await deliver(m, service.id, old)).statusCode).toBe(401);
  });

  it("sends the buyer to Checkout.com's 3DS page and completes the payment when the buyer comes back", async () => {
    const { m } = await merchantWithCheckout();
    const txn = await paid(m, { amount: 2300, payment_method: card({ redirect_url: 'https://shop.example/done' }) });
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/3ds/`) },
    });
    const sent = fake.bodies('/payments').at(-1)!;
    expect(sent['3ds']).toEqual({ enabled: true });
    expect(sent.success_url).toContain('/connector-returns/');
    const back = new URL(fake.completeThreeDs(txn.payment_service_transaction_id, true));
    const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(returned.statusCode, returned.body).toBe(200);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ status: 'authorization_succeeded' });
  });

  it('reconciles a payment whose answer was lost, found by the attempt id', async () => {
    const { m } = await merchantWithCheckout();
    const txn = await paid(m, { amount: 2409 });
    expect(txn.status).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^pay_/),
    });
  });

  it('pays out to a card from the currency account of connection_options, and reconciles a pending payout to succeeded', async () => {
    const { m, service } = await merchantWithCheckout();
    const options = {
      connection_options: {
        'checkout-card': { source_id: CHECKOUT_FAKE_ACCOUNT, processing_channel_id: CHECKOUT_FAKE_CHANNEL },
      },
    };
    const res = await postPayout(t, m, service.id, {
      ...options,
      payment_method: payoutCard(PAN),
      buyer: { billing_details: { first_name: 'Ada', last_name: 'Lovelace' } },
    });
    bodies.push(res.body);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'pending', payment_service_payout_id: expect.stringMatching(/^pay_/) });
    expect(fake.bodies('/payments').at(-1)).toMatchObject({
      source: { type: 'currency_account', id: CHECKOUT_FAKE_ACCOUNT },
      destination: {
        type: 'card',
        number: PAN,
        expiry_month: 12,
        expiry_year: 2040,
        account_holder: { type: 'individual', first_name: 'Ada', last_name: 'Lovelace' },
      },
      instruction: { funds_transfer_type: 'FD' },
    });
    await reconcileDuePayouts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/payouts/${res.json().id}`)).toMatchObject({ status: 'succeeded' });
    const declined = await postPayout(t, m, service.id, { ...options, amount: 3051 });
    await reconcileDuePayouts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/payouts/${declined.json().id}`)).toMatchObject({ status: 'declined' });
    expect(
      await t.deps.db
        .selectFrom('payouts')
        .select(['error_code', 'raw_response_code'])
        .where('merchant_account_id', '=', m)
        .where('id', '=', declined.json().id)
        .executeTakeFirst(),
    ).toEqual({ error_code: 'insufficient_funds', raw_response_code: '20051' });
    const ineligible = await postPayout(t, m, service.id, {
      ...options,
      payment_method: payoutCard('4000000000000572'),
    });
    expect(ineligible.json()).toMatchObject({ status: 'declined' });
  });
});

describe('errors', () => {
  it("records a decline with the standardized code and Checkout.com's response code", async () => {
    const { m } = await merchantWithCheckout();
    const txn = await paid(m, { amount: 2051 });
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      raw_response_code: '20051',
    });
  });

  it('refuses a key Checkout.com rejects, naming the field', async () => {
    const { res } = await merchantWithCheckout({ secret_key: 'sk_sbox_wrongkey000000000000000' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('secret_key');
  });

  it('keeps the secret key, the webhook key and the card number out of every answer, log line and table', async () => {
    await expectNoSecrets(t, bodies, [CHECKOUT_FAKE_KEY, SIGNATURE_KEY, PAN]);
  });
});
