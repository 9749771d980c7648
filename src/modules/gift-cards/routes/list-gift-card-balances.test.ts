import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import {
  TEST_GIFT_CARD_PIN as PIN,
  TEST_GIFT_CARDS,
  lookupTestGiftCard,
} from '../../../connectors/gift-cards/mock-gift-card.ts';

let t: TestApp;
let merchant: string;
let buyer: { id: string };
let storedId: string;
let othersId: string;

const DEFAULT = TEST_GIFT_CARDS[0]!.number;
const balances = (items: object[], extra: { token?: string } = {}) =>
  t.request({ method: 'POST', url: '/gift-cards/balances', payload: { items }, merchantAccountId: merchant, ...extra });
const embedToken = (embed: Record<string, unknown>) =>
  mintToken({
    privateKeyPem: t.keys.privateKeyPem,
    scopes: ['embed'],
    lifetimeSeconds: 3600,
    embed: { merchant_account_id: merchant, ...embed },
  });
const addBuyer = async (externalIdentifier: string) =>
  (
    await t.request({
      method: 'POST',
      url: '/buyers',
      payload: { display_name: externalIdentifier, external_identifier: externalIdentifier },
      merchantAccountId: merchant,
    })
  ).json();

beforeAll(async () => {
  t = await buildTestApp();
  merchant = await createMerchantAccount(t.deps);
  buyer = await addBuyer('balance-holder');
  const other = await addBuyer('balance-other');
  storedId = (
    await t.request({
      method: 'POST',
      url: '/gift-cards',
      payload: { number: DEFAULT, pin: PIN, buyer_id: buyer.id },
      merchantAccountId: merchant,
    })
  ).json().id;
  othersId = (
    await t.request({
      method: 'POST',
      url: '/gift-cards',
      payload: { number: TEST_GIFT_CARDS[1]!.number, pin: PIN, buyer_id: other.id },
      merchantAccountId: merchant,
    })
  ).json().id;
});
afterAll(async () => t.close());

describe('happy', () => {
  it('answers every test gift card with its balance or error code, in order, without ids', async () => {
    const res = await balances(TEST_GIFT_CARDS.map((card) => ({ number: card.number, pin: PIN })));
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().items;
    expect(Object.keys(res.json())).toEqual(['items']);
    TEST_GIFT_CARDS.forEach((card, index) => {
      const item = items[index];
      expect(item).toMatchObject({
        type: 'gift-card',
        id: null,
        merchant_account_id: merchant,
        bin: card.number.slice(0, 6),
        sub_bin: card.number.slice(6, 9),
        last4: card.number.slice(-4),
      });
      if (card.refusal)
        expect(item).toMatchObject({
          balance: null,
          balance_error_code: card.refusal,
          balance_raw_error_code: expect.any(String),
          currency: null,
        });
      else expect(item).toMatchObject({ balance: card.balance, currency: card.currency, balance_error_code: null });
    });
  });

  it('answers a wrong pin with invalid_gift_card and any other number with its fixed balance', async () => {
    const items = (
      await balances([
        { number: DEFAULT, pin: '0000' },
        { number: '4444333322221111', pin: 'x' },
      ])
    ).json().items;
    expect(items[0]).toMatchObject({ balance: null, balance_error_code: 'invalid_gift_card' });
    expect(items[1]).toMatchObject({ balance: lookupTestGiftCard('4444333322221111').balance, currency: 'USD' });
  });

  it('looks up a stored card by id, with its id, net of what this account redeemed from it', async () => {
    const [stored, full] = (await balances([{ id: storedId }, { number: DEFAULT, pin: PIN }])).json().items;
    expect(stored).toMatchObject({ id: storedId, last4: '0001', balance: 10000, currency: 'USD' });
    expect(full).toMatchObject({ id: null, balance: 10000 });
    const fingerprint = (
      await t.deps.db
        .selectFrom('gift_cards')
        .select('fingerprint')
        .where('id', '=', storedId)
        .executeTakeFirstOrThrow()
    ).fingerprint;
    const redemption = {
      merchant_account_id: merchant,
      transaction_id: '018f0000-0000-7000-8000-000000000001',
      fingerprint,
      bin: '603628',
      sub_bin: '100',
      last4: '0001',
    };
    await t.deps.db
      .insertInto('gift_card_redemptions')
      .values([
        {
          ...redemption,
          id: '018f0000-0000-7000-8000-0000000000a1',
          amount: 3000,
          refunded_amount: 1000,
          status: 'succeeded',
        },
        { ...redemption, id: '018f0000-0000-7000-8000-0000000000a2', amount: 500, status: 'failed' },
      ])
      .execute();
    const after = (await balances([{ id: storedId }, { number: DEFAULT, pin: PIN }])).json().items;
    expect(after.map((item: { balance: number }) => item.balance)).toEqual([8000, 8000]);
  });
});

describe('usage', () => {
  /** A payment by gift cards alone: no payment method, so no payment service is needed. */
  async function payWith(m: string, giftCard: object, extra: object = {}) {
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 100, currency: 'USD', gift_cards: [{ ...giftCard, amount: 100 }], ...extra },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().gift_card_redemptions[0].status).toBe('succeeded');
  }

  it('counts the succeeded redemptions of each card, and those of customer-initiated transactions', async () => {
    const m = await createMerchantAccount(t.deps);
    const holder = (
      await t.request({ method: 'POST', url: '/buyers', payload: { display_name: 'usage' }, merchantAccountId: m })
    ).json();
    const stored = (
      await t.request({
        method: 'POST',
        url: '/gift-cards',
        payload: { number: DEFAULT, pin: PIN, buyer_id: holder.id },
        merchantAccountId: m,
      })
    ).json().id;
    const given = TEST_GIFT_CARDS[1]!.number;
    await payWith(m, { id: stored }, { buyer_id: holder.id });
    await payWith(m, { id: stored }, { buyer_id: holder.id, merchant_initiated: true });
    await payWith(m, { number: given, pin: PIN });
    // A refused redemption is no use of the card.
    const refused = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 900, currency: 'USD', gift_cards: [{ number: given, pin: PIN, amount: 900 }] },
    });
    expect(refused.json()).toMatchObject({ status: 'authorization_declined', error_code: 'insufficient_funds' });
    const res = await t.request({
      method: 'POST',
      url: '/gift-cards/balances',
      merchantAccountId: m,
      payload: {
        items: [{ id: stored }, { number: given, pin: PIN }, { number: TEST_GIFT_CARDS[4]!.number, pin: PIN }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [first, second, unused] = res.json().items;
    expect(first).toMatchObject({
      id: stored,
      usage_count: 2,
      cit_usage_count: 1,
      last_used_at: expect.any(String),
      cit_last_used_at: expect.any(String),
    });
    expect(Date.parse(first.last_used_at)).toBeGreaterThan(Date.parse(first.cit_last_used_at));
    expect(second).toMatchObject({ id: null, usage_count: 1, cit_usage_count: 1 });
    expect(unused).toMatchObject({
      id: null,
      usage_count: 0,
      cit_usage_count: 0,
      last_used_at: null,
      cit_last_used_at: null,
    });
    // The buyer's list counts the stored card as GET /gift-cards/{id} does.
    const listed = (
      await t.request({ method: 'GET', url: `/buyers/gift-cards?buyer_id=${holder.id}`, merchantAccountId: m })
    ).json().items;
    const single = (await t.request({ method: 'GET', url: `/gift-cards/${stored}`, merchantAccountId: m })).json();
    expect(listed).toEqual([
      expect.objectContaining({
        id: stored,
        usage_count: 2,
        cit_usage_count: 1,
        last_used_at: single.last_used_at,
        cit_last_used_at: single.cit_last_used_at,
      }),
    ]);
    expect(single).toMatchObject({ usage_count: 2, cit_usage_count: 1 });
    // Another merchant account's redemptions of the same number are not this account's.
    const outsider = await createMerchantAccount(t.deps);
    const theirs = (
      await t.request({
        method: 'POST',
        url: '/gift-cards/balances',
        merchantAccountId: outsider,
        payload: { items: [{ number: given, pin: PIN }] },
      })
    ).json().items[0];
    expect(theirs).toMatchObject({ usage_count: 0, cit_usage_count: 0 });
  });
});

describe('errors', () => {
  it('answers 404 naming an unknown stored card, and validates items', async () => {
    const res = await balances([{ number: DEFAULT, pin: PIN }, { id: '018f0000-0000-7000-8000-000000000000' }]);
    expect(res.statusCode).toBe(404);
    expect(res.json().details[0]).toMatchObject({ location: 'body', pointer: '/items/1/id' });
    expect((await balances([])).statusCode).toBe(422);
    expect((await balances([{ number: '12', pin: PIN }])).statusCode).toBe(422);
    expect((await balances([{ number: DEFAULT }])).statusCode).toBe(422);
    expect((await balances(Array.from({ length: 11 }, () => ({ number: DEFAULT, pin: PIN })))).statusCode).toBe(422);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({
      method: 'POST',
      url: '/gift-cards/balances',
      payload: { items: [{ number: DEFAULT, pin: PIN }] },
      merchantAccountId: merchant,
    }),
    scope: 'gift-cards.read',
  });

  it("does not look up another merchant account's stored card", async () => {
    const outsider = await createMerchantAccount(t.deps);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/gift-cards/balances',
          payload: { items: [{ id: storedId }] },
          merchantAccountId: outsider,
        })
      ).statusCode,
    ).toBe(404);
  });

  it("lets an embed token look up cards given in full and its pinned buyer's stored cards only", async () => {
    const token = await embedToken({ buyer_id: buyer.id, amount: 1299 });
    const res = await balances([{ number: DEFAULT, pin: PIN }, { id: storedId }], { token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items[1]).toMatchObject({ id: storedId });
    expect((await balances([{ id: othersId }], { token })).statusCode).toBe(404);
    const unpinned = await embedToken({});
    expect((await balances([{ number: DEFAULT, pin: PIN }], { token: unpinned })).statusCode).toBe(200);
    expect((await balances([{ id: storedId }], { token: unpinned })).statusCode).toBe(403);
  });

  it('is open to embed tokens under the enumeration limit', async () => {
    const token = await embedToken({});
    const config = t.registeredRoutes.find((route) => route.url === '/gift-cards/balances' && route.method === 'POST')!
      .config as Record<string, unknown>;
    expect(config).toMatchObject({ embed: true, enumerationLimited: true, scope: 'gift-cards.read' });
    expect((await balances([{ number: DEFAULT, pin: PIN }], { token })).statusCode).toBe(200);
  });
});
