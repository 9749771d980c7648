import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { authorized, card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * A stored card's `scheme_transaction_id`: the scheme's transaction id of its first approved
 * customer-initiated payment, as the connector answered it (the sandbox's mock-card answers one for
 * every approval), kept for the merchant-initiated payments that follow (decision 0051).
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const CHALLENGE_CARD = '4000000000003220';

const paymentMethod = async (m: string, id: string) => {
  const res = await t.request({ method: 'GET', url: `/payment-methods/${id}`, merchantAccountId: m });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

async function storedCard(m: string, number = '4111111111111111') {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number, expiration_date: '12/40' },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ scheme_transaction_id: null, scheme_transaction_id_scheme: null });
  return res.json().id as string;
}

const payWith = (m: string, id: string, extra: Record<string, unknown> = {}) =>
  authorized(t, m, { payment_method: { method: 'id', id, security_code: '123' }, ...extra });

describe('happy', () => {
  it("keeps the first approved customer-initiated payment's scheme transaction id", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const id = await storedCard(m);
    const first = await payWith(m, id);
    expect(first).toMatchObject({
      status: 'authorization_succeeded',
      scheme_transaction_id: expect.stringMatching(/^\S+$/),
    });
    const stored = await paymentMethod(m, id);
    expect(stored).toMatchObject({
      scheme_transaction_id: first.scheme_transaction_id,
      scheme_transaction_id_scheme: 'visa',
    });
    expect(Date.parse(stored.updated_at)).toBeGreaterThan(Date.parse(stored.created_at));
    // A later payment has its own id; the card keeps the first one.
    const second = await payWith(m, id, { intent: 'capture' });
    expect(second.scheme_transaction_id).toEqual(expect.any(String));
    expect(second.scheme_transaction_id).not.toBe(first.scheme_transaction_id);
    expect((await paymentMethod(m, id)).scheme_transaction_id).toBe(first.scheme_transaction_id);
    // The buyer's list shows it too.
    const list = await t.request({ method: 'GET', url: '/payment-methods', merchantAccountId: m });
    expect(list.json().items.find((item: { id: string }) => item.id === id)).toMatchObject({
      scheme_transaction_id: first.scheme_transaction_id,
      scheme_transaction_id_scheme: 'visa',
    });
  });

  it("gives a card stored by its payment (store: true) that payment's id", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const first = await authorized(t, m, {
      store: true,
      payment_source: 'recurring',
      payment_method: card('5555555555554444'),
    });
    expect(first.payment_method.id).toEqual(expect.any(String));
    expect(await paymentMethod(m, first.payment_method.id)).toMatchObject({
      scheme_transaction_id: first.scheme_transaction_id,
      scheme_transaction_id_scheme: 'mastercard',
    });
  });

  it('gives it the id of a payment approved after a 3DS challenge', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { three_d_secure_enabled: true });
    const id = await storedCard(m, CHALLENGE_CARD);
    const res = await createTransaction(t, m, { payment_method: { method: 'id', id, security_code: '739' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('buyer_approval_pending');
    const done = await t.app.inject({
      method: 'POST',
      url: `${new URL(res.json().payment_method.approval_url).pathname}/complete`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(done.statusCode, done.body).toBeLessThan(400);
    const txn = (
      await t.request({ method: 'GET', url: `/transactions/${res.json().id}`, merchantAccountId: m })
    ).json();
    expect(txn).toMatchObject({ status: 'authorization_succeeded', scheme_transaction_id: expect.any(String) });
    expect((await paymentMethod(m, id)).scheme_transaction_id).toBe(txn.scheme_transaction_id);
  });
});

describe('errors', () => {
  it('leaves it unset after a declined payment and after a merchant-initiated one', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const declinedCard = await storedCard(m, '4000000000000002');
    expect(await payWith(m, declinedCard)).toMatchObject({ status: 'authorization_declined' });
    expect(await paymentMethod(m, declinedCard)).toMatchObject({
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
    });
    const id = await storedCard(m);
    const mit = await payWith(m, id, {
      merchant_initiated: true,
      is_subsequent_payment: true,
      payment_source: 'recurring',
    });
    expect(mit).toMatchObject({ status: 'authorization_succeeded', scheme_transaction_id: expect.any(String) });
    expect(await paymentMethod(m, id)).toMatchObject({
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
    });
  });

  it('does not replace an id set with PUT', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const id = await storedCard(m);
    const put = await t.request({
      method: 'PUT',
      url: `/payment-methods/${id}`,
      merchantAccountId: m,
      payload: { scheme_transaction_id: 'MCC000111' },
    });
    expect(put.statusCode, put.body).toBe(200);
    await payWith(m, id);
    expect(await paymentMethod(m, id)).toMatchObject({
      scheme_transaction_id: 'MCC000111',
      scheme_transaction_id_scheme: 'visa',
    });
  });
});

describe('security', () => {
  it("another merchant account's payment never writes this account's card", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    const id = await storedCard(m);
    const res = await createTransaction(t, other, { payment_method: { method: 'id', id } });
    expect(res.statusCode).toBe(404);
    expect((await paymentMethod(m, id)).scheme_transaction_id).toBeNull();
  });
});
