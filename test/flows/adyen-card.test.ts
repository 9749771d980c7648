import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * The whole flow through our API with a payment service of the `adyen-card` definition, against
 * the local Adyen fake: create the service (credentials verified at Adyen), authorize a card and a
 * stored card, partial capture, refund, void, a decline, a 3DS redirect and its return, a timeout
 * reconciled, a provider token; no card number, security code or API key anywhere we keep or log.
 */
let t: TestApp;
let fake: AdyenFake;
const PAN = '4111111145551142';
const HMAC = 'AB'.repeat(32);

beforeAll(async () => {
  fake = await startAdyenFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `adyen-card=${fake.baseUrl}`, SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const fields = (overrides: Record<string, string> = {}) =>
  Object.entries({ api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC, ...overrides }).map(
    ([key, value]) => ({ key, value }),
  );

async function merchantWithAdyen() {
  const m = await createMerchantAccount(t.deps);
  const payload = {
    display_name: 'Adyen',
    payment_service_definition_id: 'adyen-card',
    fields: fields(),
    accepted_currencies: ['EUR', 'CLP'],
    accepted_countries: ['NL', 'CL'],
    payment_method_tokenization_enabled: true,
  };
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return { m, service: res.json() };
}

const card = (extra: Record<string, unknown> = {}) => ({
  method: 'card',
  number: PAN,
  expiration_date: '03/30',
  security_code: '737',
  ...extra,
});
const pay = (m: string, body: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'EUR', country: 'NL', payment_method: card(), ...body },
  });
const post = (m: string, url: string, payload: object = {}) =>
  t.request({ method: 'POST', url, merchantAccountId: m, payload });
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();

async function paid(m: string, body: Record<string, unknown> = {}) {
  const res = await pay(m, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('happy', () => {
  it('creates the payment service after Adyen accepted the credentials, with the secrets masked', async () => {
    const { service } = await merchantWithAdyen();
    expect(service).toMatchObject({ payment_service_definition_id: 'adyen-card', active: true });
    expect(JSON.stringify(service)).not.toContain(ADYEN_FAKE_KEY);
    expect(JSON.stringify(service)).not.toContain(HMAC);
    expect(fake.requests.some((r) => r.path === '/v71/paymentMethods')).toBe(true);
  });

  it("authorizes a card, captures part of it and keeps Adyen's references", async () => {
    const { m } = await merchantWithAdyen();
    const txn = await paid(m);
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^PSP/),
      avs_response_code: 'match',
      cvv_response_code: 'match',
      auth_response_code: '064381',
    });
    const capture = await post(m, `/transactions/${txn.id}/capture`, { amount: 400 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(capture.json()).toMatchObject({ type: 'transaction-capture', status: 'pending' });
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ status: 'capture_pending' });
    expect(fake.bodies('/captures').at(-1)).toMatchObject({ amount: { value: 400, currency: 'EUR' } });
  });

  it("settles a pending capture with Adyen's signed CAPTURE webhook, once", async () => {
    const { m, service } = await merchantWithAdyen();
    const txn = await paid(m);
    expect((await post(m, `/transactions/${txn.id}/capture`, { amount: 600 })).statusCode).toBe(200);
    const item = {
      pspReference: 'CAPTUREPSP00001',
      originalReference: txn.payment_service_transaction_id,
      merchantAccountCode: ADYEN_FAKE_MERCHANT,
      merchantReference: 'ref',
      amount: { value: 600, currency: 'EUR' },
      eventCode: 'CAPTURE',
      success: 'true',
    };
    const text = [
      item.pspReference,
      item.originalReference,
      item.merchantAccountCode,
      item.merchantReference,
      600,
      'EUR',
      'CAPTURE',
      'true',
    ].join(':');
    const signed = {
      ...item,
      additionalData: { hmacSignature: createHmac('sha256', Buffer.from(HMAC, 'hex')).update(text).digest('base64') },
    };
    const deliver = (body: object) =>
      t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m}/payment-services/${service.id}/webhooks`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const forged = await deliver({
      live: 'false',
      notificationItems: [{ NotificationRequestItem: { ...signed, amount: { value: 60000, currency: 'EUR' } } }],
    });
    expect(forged.statusCode).toBe(401);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ status: 'capture_pending' });
    const res = await deliver({ live: 'false', notificationItems: [{ NotificationRequestItem: signed }] });
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 600,
    });
    expect(
      (await deliver({ live: 'false', notificationItems: [{ NotificationRequestItem: signed }] })).statusCode,
    ).toBeLessThan(300);
  });

  it("captures at once with intent capture (CLP in Adyen's units) and refunds part of it", async () => {
    const { m } = await merchantWithAdyen();
    const txn = await paid(m, { intent: 'capture', currency: 'CLP', country: 'CL', amount: 5000 });
    expect(txn).toMatchObject({ status: 'capture_succeeded', captured_amount: 5000 });
    expect(fake.bodies('/payments').at(-1)).toMatchObject({
      amount: { value: 500000, currency: 'CLP' },
      captureDelayHours: 0,
    });
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 1500 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 1500 });
    expect(fake.bodies('/refunds').at(-1)).toMatchObject({ amount: { value: 150000, currency: 'CLP' } });
  });

  it("voids an authorization (pending until Adyen's webhook)", async () => {
    const { m } = await merchantWithAdyen();
    const txn = await paid(m);
    const res = await post(m, `/transactions/${txn.id}/void`);
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.stringify(res.json())).toContain('authorization_void_pending');
    expect(fake.requests.at(-1)!.path).toBe(`/v71/payments/${txn.payment_service_transaction_id}/cancels`);
  });

  it('authorizes a stored card and creates an Adyen token for it', async () => {
    const { m, service } = await merchantWithAdyen();
    const stored = await post(m, '/payment-methods', { method: 'card', number: PAN, expiration_date: '03/30' });
    expect(stored.statusCode, stored.body).toBe(201);
    const txn = await paid(m, { payment_method: { method: 'id', id: stored.json().id, security_code: '737' } });
    expect(txn).toMatchObject({ status: 'authorization_succeeded', payment_method: { id: stored.json().id } });
    const token = await post(m, `/payment-methods/${stored.json().id}/payment-service-tokens`, {
      payment_service_id: service.id,
      redirect_url: 'https://shop.example/back',
    });
    expect(token.statusCode, token.body).toBe(201);
    expect(token.json()).toMatchObject({ status: 'succeeded' });
    expect(fake.bodies('/payments').at(-1)).toMatchObject({ storePaymentMethod: true, amount: { value: 0 } });
  });

  it('sends the buyer to 3DS, and completes the payment when the buyer comes back', async () => {
    const { m } = await merchantWithAdyen();
    const txn = await paid(m, { amount: 2300, payment_method: card({ redirect_url: 'https://shop.example/done' }) });
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/3ds/`) },
    });
    const issuer = await fetch(`${txn.payment_method.approval_url}?answer=Y`, { redirect: 'manual' });
    const back = new URL(issuer.headers.get('location')!);
    const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(returned.statusCode, returned.body).toBe(200);
    expect(returned.headers.refresh).toContain(
      `https://shop.example/done?transaction_id=${txn.id}&transaction_status=authorization_succeeded`,
    );
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^PSP/),
    });
    const again = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(again.statusCode).toBe(200);
  });

  it('fails over from Adyen when it cannot take the payment (429) to the next service of the rule', async () => {
    const { m, service } = await merchantWithAdyen();
    const mock = await post(m, '/payment-services', {
      display_name: 'Backup',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'b' }],
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL'],
    });
    expect(mock.statusCode, mock.body).toBe(201);
    const rule = await post(m, '/flows/card-transaction/actions/route-transaction/rules', {
      description: 'Adyen then backup',
      conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
      outcome: { payment_service_ids: [service.id, mock.json().id], max_attempts: 2 },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    const txn = await paid(m, { amount: 2429 });
    expect(txn).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: mock.json().id } });
    expect(JSON.stringify(await get(m, `/transactions/${txn.id}/actions`))).toContain('service_unreachable');
  });

  it('reconciles a payment whose answer was lost, through the same idempotency key', async () => {
    const { m } = await merchantWithAdyen();
    const txn = await paid(m, { amount: 2409 });
    expect(txn.status).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^PSP/),
    });
  });

  it("asks Adyen again about a pending capture, refund and cancel with each one's own first request", async () => {
    const { m } = await merchantWithAdyen();
    const captured = await paid(m);
    expect((await post(m, `/transactions/${captured.id}/capture`, { amount: 400 })).statusCode).toBe(200);
    const charged = await paid(m, { intent: 'capture' });
    expect((await post(m, `/transactions/${charged.id}/refunds`, { amount: 300 })).statusCode).toBe(201);
    const voided = await paid(m);
    expect((await post(m, `/transactions/${voided.id}/void`)).statusCode).toBe(200);
    const modifications = () => fake.requests.filter((r) => /\/(captures|refunds|cancels)$/.test(r.path)).length;
    const sent = modifications();
    const reused = fake.reusedWithOtherBody.length;
    // Adyen answers `received` and decides later: reconciliation re-posts each with its key.
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(modifications()).toBeGreaterThanOrEqual(sent + 3);
    // Each re-post is its first request again, to the payment's pspReference with the same reference
    // and amount: Adyen answers it by the key (and makes it, if the first never arrived). Only an
    // authorization's status probe (no card) may differ from its first request.
    expect(fake.reusedWithOtherBody.slice(reused).filter((r) => r.path !== '/v71/payments')).toEqual([]);
  });
});

describe('errors', () => {
  it("records a decline with the standardized code and Adyen's raw code", async () => {
    const { m } = await merchantWithAdyen();
    expect(await paid(m, { amount: 2051 })).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      raw_response_code: '12',
      raw_response_description: 'Not enough balance',
    });
  });

  it('refuses credentials Adyen rejects, naming the field', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Adyen',
        payment_service_definition_id: 'adyen-card',
        fields: fields({ api_key: 'wrong-key' }),
        accepted_currencies: ['EUR'],
        accepted_countries: ['NL'],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('api_key');
    expect(res.body).not.toContain('wrong-key');
  });

  it('fails an authorization Adyen is too busy for (429), without charging', async () => {
    const { m } = await merchantWithAdyen();
    expect(await paid(m, { amount: 2429 })).toMatchObject({ status: 'authorization_failed' });
  });
});

describe('security', () => {
  it("answers 404 for a return to an unknown attempt or another merchant's", async () => {
    const { m } = await merchantWithAdyen();
    const txn = await paid(m, { amount: 2300 });
    const attempt = new URL(fake.bodies('/payments').at(-1)!.returnUrl).pathname.split('/').at(-1);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/connector-returns/${m}/018f0000-0000-7000-8000-000000000000?redirectResult=x`,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: `/connector-returns/another-merchant/${attempt}?redirectResult=x` }))
        .statusCode,
    ).toBe(404);
    const forged = await t.app.inject({
      method: 'GET',
      url: `/connector-returns/${m}/${attempt}?redirectResult=Y.PSPforged`,
    });
    expect(forged.statusCode).toBe(200);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ status: 'buyer_approval_pending' });
  });

  it('applies each item of a batch once: an item replayed inside a new batch is not applied again, the new item is', async () => {
    const { m, service } = await merchantWithAdyen();
    await subscribeToEvents(t, m);
    const txn = await paid(m);
    expect((await post(m, `/transactions/${txn.id}/capture`, { amount: 600 })).statusCode).toBe(200);
    const signed = (item: Record<string, any>) => {
      const text = [
        item.pspReference,
        item.originalReference,
        item.merchantAccountCode,
        item.merchantReference,
        item.amount.value,
        item.amount.currency,
        item.eventCode,
        item.success,
      ].join(':');
      return {
        ...item,
        additionalData: { hmacSignature: createHmac('sha256', Buffer.from(HMAC, 'hex')).update(text).digest('base64') },
      };
    };
    const common = {
      originalReference: txn.payment_service_transaction_id,
      merchantAccountCode: ADYEN_FAKE_MERCHANT,
      merchantReference: 'ref',
      amount: { value: 600, currency: 'EUR' },
      success: 'true',
    };
    const chargeback = signed({ ...common, pspReference: 'DISPUTEPSP00001', eventCode: 'NOTIFICATION_OF_CHARGEBACK' });
    const capture = signed({ ...common, pspReference: 'CAPTUREPSP00002', eventCode: 'CAPTURE' });
    const deliver = (...items: object[]) =>
      t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m}/payment-services/${service.id}/webhooks`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({
          live: 'false',
          notificationItems: items.map((NotificationRequestItem) => ({ NotificationRequestItem })),
        }),
      });
    const disputedEvents = async () =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM events WHERE merchant_account_id = ${m} AND resource_id = ${txn.id} AND kind = 'transaction.disputed'`.execute(
          t.deps.db,
        )
      ).rows[0]!.n;

    expect((await deliver(chargeback)).json()).toMatchObject({
      duplicate: false,
      actions: [{ kind: 'chargeback_opened', result: 'applied' }],
    });
    expect(await disputedEvents()).toBe(1);
    const batch = await deliver(chargeback, capture);
    expect(batch.statusCode, batch.body).toBe(200);
    expect(await disputedEvents()).toBe(1);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 600,
      disputed: true,
    });
    expect(batch.json()).toMatchObject({
      event_id: 'adyen:NOTIFICATION_OF_CHARGEBACK:DISPUTEPSP00001:true',
      duplicate: false,
      events: [
        { event_id: 'adyen:NOTIFICATION_OF_CHARGEBACK:DISPUTEPSP00001:true', duplicate: true },
        { event_id: 'adyen:CAPTURE:CAPTUREPSP00002:true', duplicate: false },
      ],
      actions: [
        { kind: 'chargeback_opened', transaction_id: txn.id, result: 'applied' },
        { kind: 'capture_succeeded', transaction_id: txn.id, result: 'applied' },
      ],
    });
    const again = await deliver(capture, chargeback);
    expect(again.json()).toMatchObject({ duplicate: true, events: [{ duplicate: true }, { duplicate: true }] });
    expect(await disputedEvents()).toBe(1);
  });

  it('keeps no card number, security code or API key in logs, transactions or stored answers', async () => {
    const { m } = await merchantWithAdyen();
    const ids = [(await paid(m)).id, (await paid(m, { amount: 2005 })).id, (await paid(m, { amount: 2101 })).id];
    const kept = [t.logs.join('\n')];
    for (const id of ids)
      kept.push(
        JSON.stringify(await get(m, `/transactions/${id}`)),
        JSON.stringify(await get(m, `/transactions/${id}/events`)),
      );
    kept.push(
      JSON.stringify(
        await t.deps.db.selectFrom('transaction_attempts').selectAll().where('merchant_account_id', '=', m).execute(),
      ),
    );
    const text = kept.join('\n');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain('"737"');
    expect(text).not.toContain(ADYEN_FAKE_KEY);
  });
});
