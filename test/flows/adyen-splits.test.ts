import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * Adyen split payments through our API against the local Adyen fake: `connection_options
 * ['adyen-card'].splits` on the authorization (`POST /payments`), a capture and a refund, in
 * Adyen's units (CLP: two decimals at Adyen), the same body again when reconciliation re-sends a
 * capture, and splits Adyen would refuse refused before any call.
 */
let t: TestApp;
let fake: AdyenFake;
let m: string;

beforeAll(async () => {
  fake = await startAdyenFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `adyen-card=${fake.baseUrl}` });
  m = await createMerchantAccount(t.deps);
  const fields = { api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: 'AB'.repeat(32) };
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Adyen marketplace',
      payment_service_definition_id: 'adyen-card',
      fields: Object.entries(fields).map(([key, value]) => ({ key, value })),
      accepted_currencies: ['EUR', 'CLP'],
      accepted_countries: ['NL', 'CL'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const card = { method: 'card', number: '4111111145551142', expiration_date: '03/30', security_code: '737' };
const pay = (splits: Record<string, unknown>, body: Record<string, unknown> = {}) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: {
      amount: 1000,
      currency: 'EUR',
      country: 'NL',
      payment_method: card,
      connection_options: { 'adyen-card': { splits } },
      ...body,
    },
  });
const post = (url: string, payload: object = {}) => t.request({ method: 'POST', url, merchantAccountId: m, payload });

const seller = (value: number, reference = 'seller-1') => ({
  type: 'MarketPlace',
  account: '8516178952380553',
  amount: { value },
  reference,
});
const commission = (value: number) => ({ type: 'Commission', amount: { value }, reference: 'fee-1' });

describe('splits', () => {
  it('sends the split items on the payment and a capture, each adding up to its amount', async () => {
    const res = await pay({
      authorization: [seller(900), commission(100)],
      capture: [seller(540, 'seller-1-c'), commission(60)],
    });
    expect(res.statusCode, res.body).toBe(201);
    const txn = res.json();
    expect(txn.status).toBe('authorization_succeeded');
    expect(fake.bodies('/v71/payments').at(-1)!.splits).toEqual([
      {
        type: 'MarketPlace',
        account: '8516178952380553',
        amount: { value: 900, currency: 'EUR' },
        reference: 'seller-1',
      },
      { type: 'Commission', amount: { value: 100, currency: 'EUR' }, reference: 'fee-1' },
    ]);
    const capture = await post(`/transactions/${txn.id}/capture`, { amount: 600 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(fake.bodies('/captures').at(-1)!.splits).toEqual([
      {
        type: 'MarketPlace',
        account: '8516178952380553',
        amount: { value: 540, currency: 'EUR' },
        reference: 'seller-1-c',
      },
      { type: 'Commission', amount: { value: 60, currency: 'EUR' }, reference: 'fee-1' },
    ]);
    // Reconciliation re-sends the pending capture with its key: the same body, splits included.
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 24 * 3600_000));
    expect(fake.reusedWithOtherBody.filter((r) => r.path.endsWith('/captures'))).toEqual([]);
    expect(fake.payments.get(txn.payment_service_transaction_id)!.captured).toBe(600);
  });

  it('sends the refund splits on a refund', async () => {
    const res = await pay(
      { authorization: [seller(1000)], refund: [seller(180, 'seller-1-r'), commission(20)] },
      { intent: 'capture' },
    );
    const txn = res.json();
    expect(txn.status, res.body).toBe('capture_succeeded');
    const refund = await post(`/transactions/${txn.id}/refunds`, { amount: 200 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(fake.bodies('/refunds').at(-1)!.splits).toEqual([
      {
        type: 'MarketPlace',
        account: '8516178952380553',
        amount: { value: 180, currency: 'EUR' },
        reference: 'seller-1-r',
      },
      { type: 'Commission', amount: { value: 20, currency: 'EUR' }, reference: 'fee-1' },
    ]);
  });

  it('converts split amounts to Adyen units (CLP has two decimals at Adyen)', async () => {
    const res = await pay(
      {
        authorization: [
          { type: 'BalanceAccount', account: 'BA00000000000000000000001', amount: { value: 900 }, reference: 'r1' },
        ],
      },
      { amount: 1000, currency: 'CLP', country: 'CL' },
    );
    expect(res.json().status, res.body).toBe('authorization_succeeded');
    expect(fake.bodies('/v71/payments').at(-1)!.splits[0].amount).toEqual({ value: 90000, currency: 'CLP' });
  });

  it('refuses splits Adyen would refuse, before calling Adyen', async () => {
    const before = fake.bodies('/v71/payments').length;
    for (const splits of [
      { authorization: [seller(900), commission(50)] },
      { authorization: [{ type: 'MarketPlace', amount: { value: 1000 }, reference: 'x' }] },
      { authorization: [{ type: 'Payout', amount: { value: 10 } }] },
      { authorization: [{ type: 'Commission' }] },
    ]) {
      const res = await pay(splits);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().status).toBe('authorization_failed');
    }
    expect(fake.bodies('/v71/payments').length).toBe(before);
  });

  it('refuses a capture whose splits do not add up to the captured amount', async () => {
    const txn = (await pay({ capture: [seller(1000)] })).json();
    expect(txn.status).toBe('authorization_succeeded');
    const before = fake.bodies('/captures').length;
    const capture = await post(`/transactions/${txn.id}/capture`, { amount: 500 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(capture.json()).toMatchObject({ status: 'failed', transaction: { status: 'authorization_succeeded' } });
    expect(fake.bodies('/captures').length).toBe(before);
  });
});
