import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import { TEST_GIFT_CARD_PIN as PIN, TEST_GIFT_CARDS, lookupTestGiftCard } from '../../../connectors/gift-cards/mock-gift-card.ts';

let t: TestApp;
let merchant: string;
let buyer: { id: string };
let storedId: string;
let othersId: string;

const DEFAULT = TEST_GIFT_CARDS[0]!.number;
const balances = (items: object[], extra: { token?: string } = {}) => t.request({ method: 'POST', url: '/gift-cards/balances', payload: { items }, merchantAccountId: merchant, ...extra });
const embedToken = (embed: Record<string, unknown>) => mintToken({ privateKeyPem: t.keys.privateKeyPem, scopes: ['embed'], lifetimeSeconds: 3600, embed: { merchant_account_id: merchant, ...embed } });
const addBuyer = async (externalIdentifier: string) =>
  (await t.request({ method: 'POST', url: '/buyers', payload: { display_name: externalIdentifier, external_identifier: externalIdentifier }, merchantAccountId: merchant })).json();

beforeAll(async () => {
  t = await buildTestApp();
  merchant = await createMerchantAccount(t.deps);
  buyer = await addBuyer('balance-holder');
  const other = await addBuyer('balance-other');
  storedId = (await t.request({ method: 'POST', url: '/gift-cards', payload: { number: DEFAULT, pin: PIN, buyer_id: buyer.id }, merchantAccountId: merchant })).json().id;
  othersId = (await t.request({ method: 'POST', url: '/gift-cards', payload: { number: TEST_GIFT_CARDS[1]!.number, pin: PIN, buyer_id: other.id }, merchantAccountId: merchant })).json().id;
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
      expect(item).toMatchObject({ type: 'gift-card', id: null, merchant_account_id: merchant, bin: card.number.slice(0, 6), sub_bin: card.number.slice(6, 9), last4: card.number.slice(-4) });
      if (card.refusal) expect(item).toMatchObject({ balance: null, balance_error_code: card.refusal, balance_raw_error_code: expect.any(String), currency: null });
      else expect(item).toMatchObject({ balance: card.balance, currency: card.currency, balance_error_code: null });
    });
  });

  it('answers a wrong pin with invalid_gift_card and any other number with its fixed balance', async () => {
    const items = (await balances([{ number: DEFAULT, pin: '0000' }, { number: '4444333322221111', pin: 'x' }])).json().items;
    expect(items[0]).toMatchObject({ balance: null, balance_error_code: 'invalid_gift_card' });
    expect(items[1]).toMatchObject({ balance: lookupTestGiftCard('4444333322221111').balance, currency: 'USD' });
  });

  it('looks up a stored card by id, with its id, net of what this account redeemed from it', async () => {
    const [stored, full] = (await balances([{ id: storedId }, { number: DEFAULT, pin: PIN }])).json().items;
    expect(stored).toMatchObject({ id: storedId, last4: '0001', balance: 10000, currency: 'USD' });
    expect(full).toMatchObject({ id: null, balance: 10000 });
    const fingerprint = (await t.deps.db.selectFrom('gift_cards').select('fingerprint').where('id', '=', storedId).executeTakeFirstOrThrow()).fingerprint;
    const redemption = { merchant_account_id: merchant, transaction_id: '018f0000-0000-7000-8000-000000000001', fingerprint, bin: '603628', sub_bin: '100', last4: '0001' };
    await t.deps.db.insertInto('gift_card_redemptions').values([
      { ...redemption, id: '018f0000-0000-7000-8000-0000000000a1', amount: 3000, refunded_amount: 1000, status: 'succeeded' },
      { ...redemption, id: '018f0000-0000-7000-8000-0000000000a2', amount: 500, status: 'failed' },
    ]).execute();
    const after = (await balances([{ id: storedId }, { number: DEFAULT, pin: PIN }])).json().items;
    expect(after.map((item: { balance: number }) => item.balance)).toEqual([8000, 8000]);
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
  runScopeTests(() => t, { request: () => ({ method: 'POST', url: '/gift-cards/balances', payload: { items: [{ number: DEFAULT, pin: PIN }] }, merchantAccountId: merchant }), scope: 'gift-cards.read' });

  it("does not look up another merchant account's stored card", async () => {
    const outsider = await createMerchantAccount(t.deps);
    expect((await t.request({ method: 'POST', url: '/gift-cards/balances', payload: { items: [{ id: storedId }] }, merchantAccountId: outsider })).statusCode).toBe(404);
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
    const config = t.registeredRoutes.find((route) => route.url === '/gift-cards/balances' && route.method === 'POST')!.config as Record<string, unknown>;
    expect(config).toMatchObject({ embed: true, enumerationLimited: true, scope: 'gift-cards.read' });
    expect((await balances([{ number: DEFAULT, pin: PIN }], { token })).statusCode).toBe(200);
  });
});
