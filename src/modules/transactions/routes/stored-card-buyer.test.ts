import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { mintToken } from '../../../cli/token.ts';

/**
 * A stored card is usable only by its own buyer (docs/security.md): the embed token paths of
 * POST /transactions. The checkout session fields path is in checkout-session-fields.test.ts.
 */

let t: TestApp;
let merchant: string;
let buyerA: string;
let buyerB: string;
let cardOfA: string;
let buyerlessCard: string;
beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: merchant } = await merchantWithMockCard(t));
  const buyer = async (external_identifier: string) =>
    (
      await t.request({
        method: 'POST',
        url: '/buyers',
        merchantAccountId: merchant,
        payload: { display_name: external_identifier, external_identifier },
      })
    ).json().id as string;
  buyerA = await buyer('buyer-a');
  buyerB = await buyer('attacker-b');
  const store = async (buyer_id: string | null) =>
    (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId: merchant,
        payload: {
          method: 'card',
          number: '5555555555554444',
          expiration_date: '11/39',
          ...(buyer_id ? { buyer_id } : {}),
        },
      })
    ).json().id as string;
  cardOfA = await store(buyerA);
  buyerlessCard = await store(null);
});
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

const embedToken = (embed: Record<string, unknown> = {}) =>
  mintToken({
    privateKeyPem: t.keys.privateKeyPem,
    scopes: ['embed'],
    lifetimeSeconds: 3600,
    embed: { merchant_account_id: merchant, ...embed },
  });
const pay = async (embed: Record<string, unknown>, body: Record<string, unknown>) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    token: await embedToken(embed),
    merchantAccountId: merchant,
    payload: { amount: 1000, currency: 'USD', ...body },
  });
const transactionsOf = (buyerId: string) =>
  t.deps.db
    .selectFrom('transactions')
    .select(['id', 'status'])
    .where('merchant_account_id', '=', merchant)
    .where('buyer_id', '=', buyerId)
    .execute();
const paymentsWith = (paymentMethodId: string) =>
  t.deps.db
    .selectFrom('transactions')
    .select('id')
    .where('merchant_account_id', '=', merchant)
    .where('payment_method_id', '=', paymentMethodId)
    .execute();
const watchConnector = () => vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');

/** A checkout session of the merchant (made server side for a checkout) whose fields a browser filled with `payment_method`. */
async function sessionWith(
  payment_method: Record<string, unknown>,
  session: Record<string, unknown> = {},
): Promise<string> {
  const id = (
    await t.request({ method: 'POST', url: '/checkout/sessions', merchantAccountId: merchant, payload: session })
  ).json().id as string;
  await t.app.inject({ method: 'PUT', url: `/checkout/sessions/${id}/fields`, payload: { payment_method } });
  return id;
}

describe('happy', () => {
  it('pays with the stored card of the buyer the embed token pins, by id or through a checkout session bound to that buyer', async () => {
    const byId = await pay({ buyer_external_identifier: 'buyer-a' }, { payment_method: { method: 'id', id: cardOfA } });
    expect(byId.statusCode, byId.body).toBe(201);
    expect(byId.json()).toMatchObject({
      status: 'authorization_succeeded',
      buyer: { id: buyerA },
      payment_method: { id: cardOfA },
    });
    const session = await sessionWith({ method: 'id', id: cardOfA, security_code: '123' }, { buyer_id: buyerA });
    const bySession = await pay({ buyer_id: buyerA }, { payment_method: { method: 'checkout-session', id: session } });
    expect(bySession.statusCode, bySession.body).toBe(201);
    expect(bySession.json()).toMatchObject({
      status: 'authorization_succeeded',
      buyer: { id: buyerA },
      payment_method: { id: cardOfA },
    });
  });

  it('lets an embed token without a buyer pin pay with a new card as a guest', async () => {
    const res = await pay({}, { payment_method: card(), buyer: { display_name: 'Guest' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'authorization_succeeded', buyer: { id: null, display_name: 'Guest' } });
  });
});

describe('security', () => {
  it("refuses buyer A's card through payment_method.buyer_id with an embed token pinned to attacker-b (403), and charges nothing", async () => {
    // The confirmed path: the browser puts A's card into a checkout session and names A inside payment_method.
    const session = await sessionWith({ method: 'id', id: cardOfA });
    const authorize = watchConnector();
    const before = await transactionsOf(buyerA);
    const res = await pay(
      { buyer_external_identifier: 'attacker-b' },
      { payment_method: { method: 'checkout-session', id: session, buyer_id: buyerA } },
    );
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({
      type: 'error',
      code: 'forbidden',
      status: 403,
      details: [{ location: 'body', pointer: '/payment_method/buyer_id', type: 'embed_pin_mismatch' }],
    });
    expect(await transactionsOf(buyerA)).toEqual(before);
    expect(authorize).not.toHaveBeenCalled();
  });

  it('applies buyer pins to every buyer field of the body, nested ones included', async () => {
    const before = await transactionsOf(buyerA);
    const authorize = watchConnector();
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [
        { buyer_id: buyerB },
        { payment_method: { method: 'checkout-session', id: await sessionWith(card()), buyer_id: buyerA } },
        '/payment_method/buyer_id',
      ],
      [{ buyer_id: buyerB }, { payment_method: card(undefined, { buyer_id: buyerA }) }, '/payment_method/buyer_id'],
      [
        { buyer_id: buyerB },
        { payment_method: card(undefined, { buyer_external_identifier: 'buyer-a' }) },
        '/payment_method/buyer_external_identifier',
      ],
      [
        { buyer_external_identifier: 'attacker-b' },
        { payment_method: card(undefined, { buyer_external_identifier: 'buyer-a' }) },
        '/payment_method/buyer_external_identifier',
      ],
      // Naming the buyer by a key the token does not pin cannot be compared with the pin: refused too.
      [{ buyer_external_identifier: 'attacker-b' }, { buyer_id: buyerA, payment_method: card() }, '/buyer_id'],
      [
        { buyer_external_identifier: 'attacker-b' },
        { payment_method: card(), buyer: { external_identifier: 'buyer-a' } },
        '/buyer/external_identifier',
      ],
    ];
    for (const [pins, body, pointer] of cases) {
      const res = await pay(pins, body);
      expect(res.statusCode, `${pointer}: ${res.body}`).toBe(403);
      expect(res.json().details).toEqual([
        expect.objectContaining({ location: 'body', pointer, type: 'embed_pin_mismatch' }),
      ]);
    }
    expect(authorize).not.toHaveBeenCalled();
    expect(await transactionsOf(buyerA)).toEqual(before);
  });

  it("answers 404 for buyer A's card, or a card of no buyer, paid by id with an embed token pinned to another buyer, and charges nothing", async () => {
    const authorize = watchConnector();
    const before = (await paymentsWith(cardOfA)).length;
    for (const pins of [{ buyer_external_identifier: 'attacker-b' }, { buyer_id: buyerB }]) {
      for (const id of [cardOfA, buyerlessCard]) {
        const res = await pay(pins, { payment_method: { method: 'id', id } });
        expect(res.statusCode, res.body).toBe(404);
        // The same answer as an unknown id: nothing says the card exists for someone else.
        expect(res.json()).toEqual({
          type: 'error',
          code: 'not_found',
          status: 404,
          message: `The payment method ${id} could not be found`,
          details: [],
        });
      }
    }
    expect(await paymentsWith(buyerlessCard)).toEqual([]);
    expect((await paymentsWith(cardOfA)).length).toBe(before);
    expect(authorize).not.toHaveBeenCalled();
  });

  it('refuses a stored card, or naming a stored buyer, to an embed token that pins no buyer (403), and charges nothing', async () => {
    const authorize = watchConnector();
    const before = (await paymentsWith(cardOfA)).length;
    for (const body of [
      { payment_method: { method: 'id', id: cardOfA } },
      { payment_method: { method: 'id', id: buyerlessCard } },
      { buyer_id: buyerA, payment_method: { method: 'id', id: cardOfA } },
      { buyer_external_identifier: 'buyer-a', payment_method: card() },
      { payment_method: card(undefined, { buyer_id: buyerA }) },
    ]) {
      const res = await pay({}, body);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'forbidden',
        message: expect.stringContaining('This embed token pins no buyer'),
      });
    }
    expect((await paymentsWith(cardOfA)).length).toBe(before);
    expect(await paymentsWith(buyerlessCard)).toEqual([]);
    expect(authorize).not.toHaveBeenCalled();
  });

  it('refuses through a checkout session the stored card of another buyer than the embed token pins', async () => {
    const session = await sessionWith({ method: 'id', id: cardOfA }, { buyer_id: buyerA });
    const authorize = watchConnector();
    const res = await pay({ buyer_id: buyerB }, { payment_method: { method: 'checkout-session', id: session } });
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json()).toMatchObject({
      code: 'not_found',
      message: `The payment method ${cardOfA} could not be found`,
    });
    expect(authorize).not.toHaveBeenCalled();
    // Refused before anything was used up: the session still holds the card for its own buyer.
    const own = await pay({ buyer_id: buyerA }, { payment_method: { method: 'checkout-session', id: session } });
    expect(own.statusCode, own.body).toBe(201);
  });

  it('keeps server-to-server tokens as they were: any stored card of the account, its buyer checked against the one named', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: merchant,
      payload: { amount: 1000, currency: 'USD', buyer_id: buyerB, payment_method: { method: 'id', id: cardOfA } },
    });
    expect(res.statusCode).toBe(400);
    const own = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: merchant,
      payload: { amount: 1000, currency: 'USD', payment_method: { method: 'id', id: buyerlessCard } },
    });
    expect(own.statusCode, own.body).toBe(201);
    // An embed token holding transactions.write of its own is a server-to-server token here, as for the buyer lists.
    const granted = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['embed', 'transactions.write'],
      lifetimeSeconds: 3600,
      embed: { merchant_account_id: merchant },
    });
    const server = await t.request({
      method: 'POST',
      url: '/transactions',
      token: granted,
      merchantAccountId: merchant,
      payload: { amount: 1000, currency: 'USD', payment_method: { method: 'id', id: buyerlessCard } },
    });
    expect(server.statusCode, server.body).toBe(201);
  });
});
