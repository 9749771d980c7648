import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';

/**
 * iDEAL through Adyen, through our API against the local Adyen fake: the `adyen-ideal` service,
 * ideal offered among the payment options only for EUR in the Netherlands, a payment waiting for
 * the buyer at the bank, captured on the buyer's return (`/payments/details`), a partial refund,
 * the buyer's cancel, intent authorize refused; the API key and HMAC key nowhere we answer, keep
 * or log.
 */
let t: TestApp;
let fake: AdyenFake;
let m: string;
const HMAC = 'AB'.repeat(32);
const bodies: string[] = [];

beforeAll(async () => {
  fake = await startAdyenFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `adyen-card=${fake.baseUrl}` });
  m = await createMerchantAccount(t.deps);
  const fields = { api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC };
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'iDEAL',
      payment_service_definition_id: 'adyen-ideal',
      fields: Object.entries(fields).map(([key, value]) => ({ key, value })),
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL'],
    },
  });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ payment_service_definition_id: 'adyen-ideal', method: 'ideal' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function call(method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

const pay = async (body: Record<string, unknown> = {}) => {
  const res = await call('POST', '/transactions', {
    amount: 1000,
    currency: 'EUR',
    country: 'NL',
    intent: 'capture',
    payment_method: { method: 'ideal', country: 'NL', currency: 'EUR', redirect_url: 'https://shop.example/done' },
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};

/** The buyer at the bank (Y approves, N cancels), then back at our return address. */
async function buyer(txn: { payment_method: { approval_url: string } }, answer: 'Y' | 'N') {
  const page = await fetch(`${txn.payment_method.approval_url}?answer=${answer}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get('location')!);
  expect(back.pathname).toMatch(/^\/connector-returns\//);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

describe('iDEAL', () => {
  it('is offered among the payment options for EUR in the Netherlands only', async () => {
    const options = async (currency: string, country: string) =>
      (await call('POST', '/payment-options', { currency, country, amount: 1000 })).json().items;
    expect(await options('EUR', 'NL')).toContainEqual(expect.objectContaining({ method: 'ideal', mode: 'redirect' }));
    expect((await options('EUR', 'DE')).map((o: { method: string }) => o.method)).not.toContain('ideal');
  });

  it("waits for the buyer at the bank, is captured on the buyer's return, and refunds part", async () => {
    const txn = await pay();
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      method: 'ideal',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/3ds/`) },
    });
    expect(fake.bodies('/v71/payments').at(-1)).toMatchObject({
      paymentMethod: { type: 'ideal' },
      amount: { value: 1000, currency: 'EUR' },
      returnUrl: expect.stringContaining('/connector-returns/'),
    });
    const returned = await buyer(txn, 'Y');
    expect(returned.statusCode, returned.body).toBe(200);
    expect(returned.headers.refresh).toContain(`https://shop.example/done?transaction_id=${txn.id}`);
    const after = (await call('GET', `/transactions/${txn.id}`)).json();
    expect(after).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    expect(after.payment_service_transaction_id).toMatch(/^PSP/);
    const refund = await call('POST', `/transactions/${txn.id}/refunds`, { amount: 400 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 400 });
    expect(fake.bodies('/refunds').at(-1)).toMatchObject({ amount: { value: 400, currency: 'EUR' } });
  });

  it('declines a payment the buyer cancelled at the bank', async () => {
    const txn = await pay();
    await buyer(txn, 'N');
    expect((await call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({ status: 'authorization_declined' });
  });

  it('refuses intent authorize (iDEAL has no separate capture) without calling Adyen', async () => {
    const before = fake.bodies('/v71/payments').length;
    const txn = await pay({ intent: 'authorize' });
    expect(txn.status).toBe('authorization_failed');
    expect(fake.bodies('/v71/payments').length).toBe(before);
  });

  it('keeps the API key and HMAC key out of every answer, row and log', async () => {
    await expectNoSecrets(t, bodies, [ADYEN_FAKE_KEY, HMAC]);
  });
});
