import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../fakes/braintree-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * The whole flow through our API with a payment service of the `braintree-card` definition,
 * against the local Braintree fake: create the service (keys checked at Braintree), authorize a
 * card and a stored card, partial capture, refund once settled, void, declines, a timeout found
 * again by its orderId, a vaulted token; nothing secret kept.
 */
let t: TestApp;
let fake: BraintreeFake;
const PAN = '4111111111111111';

beforeAll(async () => {
  fake = await startBraintreeFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `braintree-card=${fake.baseUrl}`, SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const fields = (overrides: Record<string, string> = {}) =>
  Object.entries({
    environment: 'sandbox',
    merchant_id: 'mid',
    ...BRAINTREE_FAKE_KEYS,
    merchant_account_ids: 'USD=default_usd,EUR=acme_eur',
    ...overrides,
  }).map(([key, value]) => ({ key, value }));

async function merchantWithBraintree() {
  const m = await createMerchantAccount(t.deps);
  const payload = {
    display_name: 'Braintree',
    payment_service_definition_id: 'braintree-card',
    fields: fields(),
    accepted_currencies: ['USD', 'EUR'],
    accepted_countries: ['US', 'NL'],
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
  security_code: '123',
  ...extra,
});
const pay = (m: string, body: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card(), ...body },
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
  it('authorizes, captures part, and refunds once Braintree has settled the capture', async () => {
    const { m, service } = await merchantWithBraintree();
    expect(JSON.stringify(service)).not.toContain(BRAINTREE_FAKE_KEYS.private_key);
    const txn = await paid(m, { amount: 3000, currency: 'EUR', country: 'NL' });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.any(String),
      auth_response_code: '1000',
      cvv_response_code: 'match',
    });
    expect(fake.calls('AuthorizeCreditCard').at(-1)).toMatchObject({
      input: { transaction: { amount: '30.00', merchantAccountId: 'acme_eur' } },
    });
    const capture = await post(m, `/transactions/${txn.id}/capture`, { amount: 2000 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 2000,
    });
    fake.settleAll();
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 500 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 500 });
    expect(fake.calls('RefundTransaction').at(-1)).toMatchObject({
      input: { transactionId: txn.payment_service_transaction_id, refund: { amount: '5.00' } },
    });
  });

  it('charges at once with intent capture, and voids an authorization', async () => {
    const { m } = await merchantWithBraintree();
    expect(await paid(m, { intent: 'capture' })).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    const txn = await paid(m);
    const res = await post(m, `/transactions/${txn.id}/void`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ status: 'authorization_voided' });
  });

  it('authorizes a stored card and vaults it at Braintree', async () => {
    const { m, service } = await merchantWithBraintree();
    const stored = await post(m, '/payment-methods', { method: 'card', number: PAN, expiration_date: '03/30' });
    expect(stored.statusCode, stored.body).toBe(201);
    expect(await paid(m, { payment_method: { method: 'id', id: stored.json().id } })).toMatchObject({
      status: 'authorization_succeeded',
    });
    const token = await post(m, `/payment-methods/${stored.json().id}/payment-service-tokens`, {
      payment_service_id: service.id,
      redirect_url: 'https://shop.example/back',
    });
    expect(token.statusCode, token.body).toBe(201);
    expect(token.json()).toMatchObject({ status: 'succeeded' });
  });

  it("records a chargeback from Braintree's signed dispute_opened webhook, and rejects a forged one", async () => {
    const { m, service } = await merchantWithBraintree();
    const txn = await paid(m, { intent: 'capture' });
    const legacy = Buffer.from(txn.payment_service_transaction_id, 'base64')
      .toString('utf8')
      .replace(/^transaction_/, '');
    const xml = `<notification><timestamp type="datetime">${new Date().toISOString()}</timestamp><kind>dispute_opened</kind><subject><dispute><id>dp1</id><amount-disputed>10.00</amount-disputed><currency-iso-code>USD</currency-iso-code><transaction><id>${legacy}</id></transaction></dispute></subject></notification>`;
    const payload = Buffer.from(xml).toString('base64');
    const sign = (key: string) =>
      `${BRAINTREE_FAKE_KEYS.public_key}|${createHmac('sha1', createHash('sha1').update(key).digest()).update(payload).digest('hex')}`;
    const deliver = (signature: string) =>
      t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m}/payment-services/${service.id}/webhooks`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ bt_signature: signature, bt_payload: payload }).toString(),
      });
    expect((await deliver(sign('not-the-key'))).statusCode).toBe(401);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ disputed: false });
    const res = await deliver(sign(BRAINTREE_FAKE_KEYS.private_key));
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ disputed: true });
  });

  it('reconciles an authorization whose answer was lost, found by its orderId', async () => {
    const { m } = await merchantWithBraintree();
    const txn = await paid(m, { amount: 409000 });
    expect(txn.status).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.any(String),
    });
    expect(fake.calls('AuthorizeCreditCard').filter((c) => c.input.transaction.amount === '4090.00')).toHaveLength(1);
  });
});

describe('errors', () => {
  it('records processor declines and gateway rejections with standardized and raw codes', async () => {
    const { m } = await merchantWithBraintree();
    expect(await paid(m, { amount: 200100 })).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      raw_response_code: '2001',
    });
    expect(await paid(m, { payment_method: card({ security_code: '200' }) })).toMatchObject({
      status: 'authorization_declined',
      error_code: 'incorrect_cvv',
      cvv_response_code: 'no_match',
    });
  });

  it('declines a refund before Braintree settled the capture, with its code', async () => {
    const { m } = await merchantWithBraintree();
    const txn = await paid(m, { intent: 'capture' });
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 100 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'declined' });
  });

  it('refuses keys Braintree rejects, naming the field', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'BT',
        payment_service_definition_id: 'braintree-card',
        fields: fields({ private_key: 'nope-nope' }),
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('private_key');
    expect(res.body).not.toContain('nope-nope');
  });
});

describe('security', () => {
  it("refuses a signed webhook stamped before Braintree's retry window or in the future (401, nothing changes), and applies a fresh one", async () => {
    const { m, service } = await merchantWithBraintree();
    const txn = await paid(m, { intent: 'capture' });
    const legacy = Buffer.from(txn.payment_service_transaction_id, 'base64')
      .toString('utf8')
      .replace(/^transaction_/, '');
    const deliver = (at: Date) => {
      const xml = `<notification><timestamp type="datetime">${at.toISOString()}</timestamp><kind>dispute_opened</kind><subject><dispute><id>dp-${at.getTime()}</id><amount-disputed>10.00</amount-disputed><currency-iso-code>USD</currency-iso-code><transaction><id>${legacy}</id></transaction></dispute></subject></notification>`;
      const payload = Buffer.from(xml).toString('base64');
      const signature = `${BRAINTREE_FAKE_KEYS.public_key}|${createHmac('sha1', createHash('sha1').update(BRAINTREE_FAKE_KEYS.private_key).digest()).update(payload).digest('hex')}`;
      return t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m}/payment-services/${service.id}/webhooks`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ bt_signature: signature, bt_payload: payload }).toString(),
      });
    };
    const hour = 3600_000;
    const stale = await deliver(new Date(Date.now() - 26 * hour));
    expect(stale.statusCode, stale.body).toBe(401);
    expect((await deliver(new Date(Date.now() + hour))).statusCode).toBe(401);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ disputed: false });
    // A retry Braintree sends 23 hours after the event still checks out.
    const retried = await deliver(new Date(Date.now() - 23 * hour));
    expect(retried.statusCode, retried.body).toBe(200);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ disputed: true });
  });

  it('keeps no card number, security code or private key in logs, transactions or stored answers', async () => {
    const { m } = await merchantWithBraintree();
    const ids = [(await paid(m)).id, (await paid(m, { amount: 200000 })).id, (await paid(m, { amount: 500000 })).id];
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
    expect(text).not.toContain('"123"');
    expect(text).not.toContain(BRAINTREE_FAKE_KEYS.private_key);
  });
});
