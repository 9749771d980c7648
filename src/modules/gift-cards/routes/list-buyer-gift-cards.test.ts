import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import { TEST_GIFT_CARD_PIN as PIN, TEST_GIFT_CARDS } from '../../../connectors/gift-cards/mock-gift-card.ts';

let t: TestApp;
let merchant: string;
let buyer: { id: string; external_identifier: string };
let other: { id: string; external_identifier: string };
const cards: Record<string, string> = {};

const addBuyer = async (externalIdentifier: string) =>
  (
    await t.request({
      method: 'POST',
      url: '/buyers',
      payload: { display_name: externalIdentifier, external_identifier: externalIdentifier },
      merchantAccountId: merchant,
    })
  ).json();
async function storeCard(number: string, payload: object): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/gift-cards',
    payload: { number, pin: PIN, ...payload },
    merchantAccountId: merchant,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}
const list = (query: string, extra: { token?: string } = {}) =>
  t.request({ method: 'GET', url: `/buyers/gift-cards?${query}`, merchantAccountId: merchant, ...extra });
const idsOf = (body: { items: Array<{ id: string }> }) => body.items.map((item) => item.id);
const embedToken = (embed: Record<string, unknown>) =>
  mintToken({
    privateKeyPem: t.keys.privateKeyPem,
    scopes: ['embed'],
    lifetimeSeconds: 3600,
    embed: { merchant_account_id: merchant, ...embed },
  });

beforeAll(async () => {
  t = await buildTestApp();
  merchant = await createMerchantAccount(t.deps);
  buyer = await addBuyer('gift-holder-1');
  other = await addBuyer('gift-holder-2');
  cards.first = await storeCard(TEST_GIFT_CARDS[0]!.number, { buyer_id: buyer.id });
  cards.second = await storeCard(TEST_GIFT_CARDS[4]!.number, { buyer_id: buyer.id });
  cards.others = await storeCard(TEST_GIFT_CARDS[1]!.number, { buyer_external_identifier: other.external_identifier });
});
afterAll(async () => t.close());

describe('happy', () => {
  it("lists the buyer's gift cards newest first, with their balances", async () => {
    const res = await list(`buyer_id=${buyer.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(Object.keys(res.json())).toEqual(['items']);
    expect(idsOf(res.json())).toEqual([cards.second, cards.first]);
    expect(res.json().items[0]).toMatchObject({
      type: 'gift-card',
      merchant_account_id: merchant,
      last4: '0005',
      currency: 'EUR',
      balance: 5000,
      balance_error_code: null,
    });
    expect(idsOf((await list(`buyer_external_identifier=${other.external_identifier}`)).json())).toEqual([
      cards.others,
    ]);
  });

  it('answers an empty list for a buyer without gift cards', async () => {
    const empty = await addBuyer('gift-holder-empty');
    expect((await list(`buyer_id=${empty.id}`)).json()).toEqual({ items: [] });
  });
});

describe('errors', () => {
  it('answers 400 without a buyer or when the keys name different buyers, 404 for an unknown buyer', async () => {
    expect((await list('')).statusCode).toBe(400);
    expect((await list(`buyer_id=${buyer.id}&buyer_external_identifier=${other.external_identifier}`)).statusCode).toBe(
      400,
    );
    expect((await list('buyer_id=018f0000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await list('buyer_id=nope')).statusCode).toBe(422);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({ method: 'GET', url: `/buyers/gift-cards?buyer_id=${buyer.id}`, merchantAccountId: merchant }),
    scope: 'gift-cards.read',
  });

  it("does not show another merchant account's buyer", async () => {
    const outsider = await createMerchantAccount(t.deps);
    expect(
      (await t.request({ method: 'GET', url: `/buyers/gift-cards?buyer_id=${buyer.id}`, merchantAccountId: outsider }))
        .statusCode,
    ).toBe(404);
  });

  it('lets an embed token pinned to a buyer list only that buyer', async () => {
    const token = await embedToken({ buyer_id: buyer.id });
    expect(idsOf((await list('', { token })).json())).toEqual([cards.second, cards.first]);
    expect((await list(`buyer_id=${buyer.id}`, { token })).statusCode).toBe(200);
    const mismatch = await list(`buyer_id=${other.id}`, { token });
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json().details[0]).toMatchObject({
      location: 'query',
      pointer: '/buyer_id',
      type: 'embed_pin_mismatch',
    });
    const byRef = await embedToken({ buyer_external_identifier: other.external_identifier });
    expect(idsOf((await list('', { token: byRef })).json())).toEqual([cards.others]);
    expect((await list(`buyer_id=${buyer.id}`, { token: await embedToken({}) })).statusCode).toBe(403);
  });

  it('lets an embed token store a gift card for its pinned buyer only', async () => {
    const token = await embedToken({ buyer_id: other.id });
    const store = (payload: object, bearer: string) =>
      t.app.inject({
        method: 'POST',
        url: '/gift-cards',
        payload: { pin: PIN, ...payload },
        headers: { authorization: `Bearer ${bearer}` },
      });
    const created = await store({ number: '3333444455556666' }, token);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().buyer).toMatchObject({ id: other.id });
    expect((await store({ number: '3333444455556667', buyer_id: buyer.id }, token)).statusCode).toBe(403);
    expect((await store({ number: '3333444455556668', buyer_id: buyer.id }, await embedToken({}))).statusCode).toBe(
      403,
    );
    expect((await store({ number: '3333444455556669' }, await embedToken({}))).statusCode).toBe(201);
  });
});
