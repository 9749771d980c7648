import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/** A security code given when a card is stored is used by the next payment with that card, once. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const heldCodes = (id: string) =>
  t.deps.db
    .selectFrom('vault_security_codes')
    .selectAll()
    .where('owner_type', '=', 'payment-method')
    .where('owner_id', '=', id)
    .execute();

async function storedCard(m: string, securityCode?: string) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: {
      method: 'card',
      number: '4111111111111111',
      expiration_date: '12/40',
      ...(securityCode ? { security_code: securityCode } : {}),
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

describe('happy', () => {
  it('the first payment sends the held code and destroys it; the next has none', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const id = await storedCard(m, '123');
    expect(await heldCodes(id)).toHaveLength(1);
    const first = await authorized(t, m, { payment_method: { method: 'id', id } });
    expect(first).toMatchObject({ status: 'authorization_succeeded', cvv_response_code: 'match' });
    expect(await heldCodes(id)).toEqual([]);
    const second = await authorized(t, m, { payment_method: { method: 'id', id } });
    expect(second).toMatchObject({ status: 'authorization_succeeded', cvv_response_code: 'not_provided' });
  });

  it('a card stored without a code pays without one', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const id = await storedCard(m);
    expect(await authorized(t, m, { payment_method: { method: 'id', id } })).toMatchObject({
      status: 'authorization_succeeded',
      cvv_response_code: 'not_provided',
    });
  });
});

describe('errors', () => {
  it('a payment refused before it is recorded (no payment service for it) leaves the code held', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { accepted_currencies: ['USD'] });
    const id = await storedCard(m, '123');
    const refused = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'EUR', payment_method: { method: 'id', id } },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(await heldCodes(id)).toHaveLength(1);
    expect(await authorized(t, m, { payment_method: { method: 'id', id } })).toMatchObject({
      cvv_response_code: 'match',
    });
  });
});
