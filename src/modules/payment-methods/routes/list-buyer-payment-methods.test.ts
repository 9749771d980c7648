import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';

let t: TestApp;
let merchant: string;
let buyer: { id: string; external_identifier: string };
let other: { id: string; external_identifier: string };
const cards: Record<string, string> = {};

async function addBuyer(externalIdentifier: string) {
  const res = await t.request({
    method: 'POST',
    url: '/buyers',
    payload: { display_name: externalIdentifier, external_identifier: externalIdentifier },
    merchantAccountId: merchant,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
async function storeCard(number: string, buyerId: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    payload: { method: 'card', number, expiration_date: '12/39', buyer_id: buyerId, external_identifier: 'ext' },
    merchantAccountId: merchant,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}
const setColumn = (id: string, values: { last_used_at?: Date; status?: string }) =>
  t.deps.db
    .updateTable('payment_methods')
    .set(values)
    .where('merchant_account_id', '=', merchant)
    .where('id', '=', id)
    .execute();
const list = (query: string, extra: { token?: string } = {}) =>
  t.request({ method: 'GET', url: `/buyers/payment-methods?${query}`, merchantAccountId: merchant, ...extra });
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
  buyer = await addBuyer('holder-1');
  other = await addBuyer('holder-2');
  cards.never = await storeCard('4111111111111111', buyer.id);
  cards.old = await storeCard('5555555555554444', buyer.id);
  cards.recent = await storeCard('378282246310005', buyer.id);
  cards.failed = await storeCard('6011111111111117', buyer.id);
  cards.others = await storeCard('4242424242424242', other.id);
  await setColumn(cards.old, { last_used_at: new Date('2026-01-01T00:00:00Z') });
  await setColumn(cards.recent, { last_used_at: new Date('2026-06-01T00:00:00Z') });
  await setColumn(cards.failed, { status: 'failed' });
});
afterAll(async () => t.close());

describe('happy', () => {
  it("lists the buyer's usable methods, most recently used first and never used last", async () => {
    const res = await list(`buyer_id=${buyer.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['items']);
    expect(idsOf(body)).toEqual([cards.recent, cards.old, cards.never]);
    const item = body.items[0];
    expect(item).toMatchObject({
      type: 'payment-method',
      method: 'card',
      scheme: 'amex',
      label: '0005',
      merchant_account_id: merchant,
      has_replacement: false,
      usage_count: 0,
    });
    for (const field of ['buyer', 'external_identifier', 'status', 'created_at', 'updated_at'])
      expect(item).not.toHaveProperty(field);
    expect(res.body).not.toContain('378282246310005');
  });

  it('orders ascending on request, still with never-used methods last', async () => {
    expect(idsOf((await list(`buyer_id=${buyer.id}&order_by=asc&sort_by=last_used_at`)).json())).toEqual([
      cards.old,
      cards.recent,
      cards.never,
    ]);
  });

  it('chooses the buyer by external identifier, and keeps cards (tied to no country or currency) under those filters', async () => {
    expect(idsOf((await list(`buyer_external_identifier=${other.external_identifier}`)).json())).toEqual([
      cards.others,
    ]);
    expect(idsOf((await list(`buyer_id=${buyer.id}&country=GB&currency=EUR`)).json())).toHaveLength(3);
  });

  it('answers an empty list for a buyer without methods', async () => {
    const empty = await addBuyer('holder-empty');
    expect((await list(`buyer_id=${empty.id}`)).json()).toEqual({ items: [] });
  });
});

describe('errors', () => {
  it('answers 400 without a buyer and when the two keys name different buyers', async () => {
    const none = await list('');
    expect(none.statusCode).toBe(400);
    expect(none.json().details[0]).toMatchObject({ location: 'query', pointer: '/buyer_id' });
    expect((await list(`buyer_id=${buyer.id}&buyer_external_identifier=${other.external_identifier}`)).statusCode).toBe(
      400,
    );
    expect((await list(`buyer_id=${buyer.id}&buyer_external_identifier=${buyer.external_identifier}`)).statusCode).toBe(
      200,
    );
  });

  it('answers 404 for an unknown buyer', async () => {
    expect((await list('buyer_id=018f0000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await list('buyer_external_identifier=nobody')).statusCode).toBe(404);
  });

  it('refuses other sort keys and orders, and malformed filters', async () => {
    expect((await list(`buyer_id=${buyer.id}&sort_by=created_at`)).statusCode).toBe(422);
    expect((await list(`buyer_id=${buyer.id}&order_by=up`)).statusCode).toBe(422);
    expect((await list(`buyer_id=${buyer.id}&country=gb`)).statusCode).toBe(422);
    expect((await list('buyer_id=nope')).statusCode).toBe(422);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({
      method: 'GET',
      url: `/buyers/payment-methods?buyer_id=${buyer.id}`,
      merchantAccountId: merchant,
    }),
    scope: 'payment-methods.read',
  });

  it("does not show another merchant account's buyer", async () => {
    const outsider = await createMerchantAccount(t.deps);
    expect(
      (
        await t.request({
          method: 'GET',
          url: `/buyers/payment-methods?buyer_id=${buyer.id}`,
          merchantAccountId: outsider,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('lets an embed token pinned to a buyer see that buyer only, with or without the query value', async () => {
    const token = await embedToken({ buyer_id: buyer.id });
    expect(idsOf((await list('', { token })).json())).toEqual([cards.recent, cards.old, cards.never]);
    expect((await list(`buyer_id=${buyer.id}`, { token })).statusCode).toBe(200);
    const mismatch = await list(`buyer_id=${other.id}`, { token });
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json().details[0]).toMatchObject({
      location: 'query',
      pointer: '/buyer_id',
      type: 'embed_pin_mismatch',
    });
    expect((await list(`buyer_external_identifier=${other.external_identifier}`, { token })).statusCode).toBe(403);
  });

  it('applies a pin by external identifier the same way', async () => {
    const token = await embedToken({ buyer_external_identifier: other.external_identifier });
    expect(idsOf((await list('', { token })).json())).toEqual([cards.others]);
    expect((await list(`buyer_id=${buyer.id}`, { token })).statusCode).toBe(403);
  });

  it('refuses an embed token that pins no buyer', async () => {
    const token = await embedToken({});
    expect((await list(`buyer_id=${buyer.id}`, { token })).statusCode).toBe(403);
  });
});
