import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADYEN_FAKE_KEY,
  ADYEN_FAKE_MERCHANT,
  startAdyenFake,
  type AdyenFake,
} from '../../../../test/fakes/adyen-fake.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';

/** `GET /connector-returns/...`: the buyer back from Adyen's 3DS page (against the local Adyen fake). */
let t: TestApp;
let fake: AdyenFake;

beforeAll(async () => {
  fake = await startAdyenFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `adyen-card=${fake.baseUrl}` });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function challenged(redirectUrl: string | null = 'https://shop.example/done?order=7') {
  const m = await createMerchantAccount(t.deps);
  const fields = [
    { key: 'api_key', value: ADYEN_FAKE_KEY },
    { key: 'merchant_account', value: ADYEN_FAKE_MERCHANT },
  ];
  const service = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Adyen',
      payment_service_definition_id: 'adyen-card',
      fields,
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL'],
    },
  });
  expect(service.statusCode, service.body).toBe(201);
  const card = {
    method: 'card',
    number: '4212345678910006',
    expiration_date: '03/30',
    security_code: '737',
    ...(redirectUrl ? { redirect_url: redirectUrl } : {}),
  };
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 2300, currency: 'EUR', country: 'NL', payment_method: card },
  });
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn.status).toBe('buyer_approval_pending');
  return { m, txn };
}

/** The address Adyen sends the buyer back to, after the issuer's page answered `answer`. */
async function returnPath(approvalUrl: string, answer: 'Y' | 'N') {
  const issuer = await fetch(`${approvalUrl}?answer=${answer}`, { redirect: 'manual' });
  const back = new URL(issuer.headers.get('location')!);
  return `${back.pathname}${back.search}`;
}

const status = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}`, merchantAccountId: m })).json().status;

describe('happy', () => {
  it('completes an authenticated payment and sends the buyer to redirect_url with the outcome', async () => {
    const { m, txn } = await challenged();
    const res = await t.app.inject({ method: 'GET', url: await returnPath(txn.payment_method.approval_url, 'Y') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    // Framable, unlike the sandbox pages: a merchant may run the provider's 3DS page in a frame, and the return lands there.
    expect(res.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(res.headers.refresh).toBe(
      `0;url=https://shop.example/done?order=7&transaction_id=${txn.id}&transaction_status=authorization_succeeded`,
    );
    expect(res.body).toContain('authorization succeeded');
    // A phone shows it at its own width (the buyer comes back from the provider on a phone as often as not).
    expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(await status(m, txn.id)).toBe('authorization_succeeded');
  });

  it('declines a payment whose authentication failed, and answers a reload with the same state', async () => {
    const { m, txn } = await challenged(null);
    const path = await returnPath(txn.payment_method.approval_url, 'N');
    const res = await t.app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(200);
    expect(res.headers.refresh).toBeUndefined();
    expect(await status(m, txn.id)).toBe('authorization_declined');
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json(),
    ).toMatchObject({ error_code: 'three_d_secure_authentication_failed', raw_response_code: '11' });
    const reload = await t.app.inject({ method: 'GET', url: path });
    expect(reload.statusCode).toBe(200);
    expect(reload.body).toContain('authorization declined');
  });
});

describe('errors', () => {
  it('answers 404 for an unknown attempt and 422 for an attempt id that is not a uuid', async () => {
    const { m } = await challenged();
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/connector-returns/${m}/018f0000-0000-7000-8000-000000000000?redirectResult=x`,
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/connector-returns/${m}/not-a-uuid` })).statusCode).toBe(422);
  });
});

describe('security', () => {
  it('needs no token, yet finds attempts only under their own merchant account', async () => {
    const { m, txn } = await challenged();
    const path = await returnPath(txn.payment_method.approval_url, 'Y');
    const elsewhere = path.replace(`/connector-returns/${m}/`, '/connector-returns/someone-else/');
    expect((await t.app.inject({ method: 'GET', url: elsewhere })).statusCode).toBe(404);
    expect(await status(m, txn.id)).toBe('buyer_approval_pending');
  });

  it('changes nothing for a redirectResult Adyen does not recognise', async () => {
    const { m, txn } = await challenged();
    const path = (await returnPath(txn.payment_method.approval_url, 'Y')).replace(
      /redirectResult=[^&]+/,
      'redirectResult=Y.PSPforged',
    );
    const res = await t.app.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(200);
    expect(await status(m, txn.id)).toBe('buyer_approval_pending');
  });
});
