import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { uuidv7 } from '../../../lib/ids.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const card = (number = VISA) => ({ method: 'card', number, expiration_date: '12/39', security_code: '737' });
const THREE_DS = {
  merchant_acquirer_bin: '411111',
  merchant_acquirer_id: 'acq-visa-eur',
  merchant_name: 'Shop',
  merchant_country_code: '826',
  merchant_category_code: '5999',
  merchant_url: 'https://shop.example',
  scheme: 'visa',
  currency: 'EUR',
  metadata: {},
};

async function merchant(configs: Array<Record<string, unknown>>): Promise<string> {
  const m = await createMerchantAccount(t.deps);
  for (const config of configs) {
    const res = await t.request({
      method: 'POST',
      url: `/merchant-accounts/${m}/three-ds-configurations`,
      payload: { ...THREE_DS, ...config },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return m;
}
/** A session of the merchant account, with a card when `number` is given. */
async function session(m: string, body: Record<string, unknown> = {}, number: string | null = VISA): Promise<string> {
  const id = (
    await t.request({ method: 'POST', url: '/checkout/sessions', merchantAccountId: m, payload: body })
  ).json().id as string;
  if (number)
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: `/checkout/sessions/${id}/fields`,
          payload: { payment_method: card(number) },
        })
      ).statusCode,
    ).toBe(204);
  return id;
}
const acquirer = (id: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/checkout/sessions/${id}/acquirer`, headers });

describe('happy', () => {
  it("answers the 3DS configuration of the card's scheme and the session's currency, without a bearer token", async () => {
    const m = await merchant([
      {},
      { currency: 'USD', merchant_acquirer_id: 'acq-visa-usd' },
      { scheme: 'mastercard', merchant_acquirer_bin: '222100', merchant_acquirer_id: 'acq-mc' },
    ]);
    const res = await acquirer(await session(m, { amount: 1299, currency: 'EUR' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      scheme: 'visa',
      currency: 'EUR',
      merchant_acquirer_bin: '411111',
      merchant_acquirer_id: 'acq-visa-eur',
      merchant_name: 'Shop',
      merchant_country_code: '826',
      merchant_category_code: '5999',
      merchant_url: 'https://shop.example',
    });
    expect((await acquirer(await session(m, { currency: 'USD' }))).json()).toMatchObject({
      scheme: 'visa',
      currency: 'USD',
      merchant_acquirer_id: 'acq-visa-usd',
    });
    expect((await acquirer(await session(m, { currency: 'EUR' }, MASTERCARD))).json()).toMatchObject({
      scheme: 'mastercard',
      merchant_acquirer_bin: '222100',
      merchant_acquirer_id: 'acq-mc',
    });
  });

  it("falls back to the scheme's configuration for every currency", async () => {
    const m = await merchant([
      { currency: null, merchant_acquirer_id: 'acq-any' },
      { currency: 'GBP', merchant_acquirer_id: 'acq-gbp' },
    ]);
    expect((await acquirer(await session(m, { currency: 'EUR' }))).json()).toMatchObject({
      currency: 'EUR',
      merchant_acquirer_id: 'acq-any',
    });
    expect((await acquirer(await session(m, {}))).json()).toMatchObject({
      currency: null,
      merchant_acquirer_id: 'acq-any',
    });
    expect((await acquirer(await session(m, { currency: 'GBP' }))).json()).toMatchObject({
      merchant_acquirer_id: 'acq-gbp',
    });
  });

  it('is documented as an operation without a bearer token, with the shared errors', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/checkout/sessions/{session_id}/acquirer'].get;
    expect(operation).toMatchObject({
      operationId: 'getCheckoutSessionAcquirer',
      security: [],
      tags: ['checkout-sessions'],
    });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '429']));
  });
});

describe('errors', () => {
  it('404 while the session holds no card, and when no configuration matches', async () => {
    const m = await merchant([{ currency: 'USD' }]);
    const empty = await session(m, { currency: 'USD' }, null);
    const noCard = await acquirer(empty);
    expect(noCard.statusCode).toBe(404);
    expect(noCard.json()).toEqual({
      type: 'error',
      code: 'not_found',
      status: 404,
      message: `Checkout session ${empty} holds no card yet: send its card with PUT /checkout/sessions/${empty}/fields first`,
      details: [],
    });
    const none = await acquirer(await session(m, { currency: 'EUR' }));
    expect(none.json()).toEqual({
      type: 'error',
      code: 'not_found',
      status: 404,
      message: 'No 3DS configuration for scheme visa and currency EUR on this merchant account',
      details: [],
    });
    expect((await acquirer(await session(m, { currency: 'USD' }, MASTERCARD))).statusCode).toBe(404);
  });
});

describe('security', () => {
  it('answers 401 for an unknown, malformed or expired session id', async () => {
    const unauthorized = {
      type: 'error',
      code: 'unauthorized',
      status: 401,
      message: 'No valid API authentication found',
      details: [],
    };
    expect((await acquirer(uuidv7())).json()).toEqual(unauthorized);
    expect((await acquirer('not-a-uuid')).statusCode).toBe(401);
    const m = await merchant([{}]);
    const id = await session(m, { currency: 'EUR' });
    await t.deps.db
      .updateTable('checkout_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
    expect((await acquirer(id)).json()).toEqual(unauthorized);
  });

  it("never answers another merchant account's configuration: the session's account decides, and naming another is 403", async () => {
    const a = await merchant([{ merchant_acquirer_id: 'acq-of-a' }]);
    const b = await merchant([{ merchant_acquirer_id: 'acq-of-b' }]);
    const ofB = await session(b, { currency: 'EUR' });
    expect((await acquirer(ofB)).json()).toMatchObject({ merchant_acquirer_id: 'acq-of-b' });
    const named = await acquirer(ofB, { 'x-svc-merchant-account-id': a });
    expect(named.statusCode).toBe(403);
    expect(named.body).not.toContain('acq-of');
    // A bearer token of A does not make the session A's either.
    const withToken = await t.request({
      method: 'GET',
      url: `/checkout/sessions/${ofB}/acquirer`,
      merchantAccountId: a,
    });
    expect(withToken.statusCode).toBe(403);
    expect(withToken.body).not.toContain('acq-of');
  });

  it("counts against the session's 50 calls a minute, shared with its fields", async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const m = await merchant([{}]);
    const id = await session(m, { currency: 'EUR' });
    const statuses: number[] = [];
    for (let i = 0; i < 49; i++) statuses.push((await acquirer(id)).statusCode);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const over = await acquirer(id);
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
