import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { uuidv7 } from '../../../lib/ids.ts';

type Page = {
  items: Array<{ id: string; updated_at: string; buyer: any }>;
  limit: number;
  next_cursor: string | null;
  previous_cursor: string | null;
};

let t: TestApp;
let m: string;
let paymentServiceId: string;
/** The fixture transactions of merchant `m`, by name. */
const tx: Record<
  'a' | 'b' | 'c' | 'd',
  { id: string; payment_method: any; payment_service_transaction_id: string | null }
> = {} as never;
const giftCardId = uuidv7();

async function list(query: string, merchantAccountId = m, scopes?: string[]) {
  const res = await t.request({
    method: 'GET',
    url: `/transactions${query}`,
    merchantAccountId,
    ...(scopes ? { scopes } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

/** The fixture names a filter selects, in list order. */
async function names(query: string): Promise<string[]> {
  const byId = new Map(Object.entries(tx).map(([name, row]) => [row.id, name]));
  return (await list(`?limit=100&${query}`)).items.map((item) => byId.get(item.id) ?? item.id);
}

const set = (id: string, values: Record<string, unknown>) =>
  t.deps.db.updateTable('transactions').set(values).where('merchant_account_id', '=', m).where('id', '=', id).execute();

async function seedRelatedRows() {
  const db = t.deps.db;
  await db
    .insertInto('settlements')
    .values({
      merchant_account_id: m,
      id: uuidv7(),
      transaction_id: tx.b.id,
      currency: 'EUR',
      amount: 2500,
      payment_service_report_id: 'r-1',
      posted_at: new Date(),
      ingested_at: new Date(),
    })
    .execute();
  const card = {
    merchant_account_id: m,
    bin: '60000000',
    sub_bin: '6000000000',
    last4: '4321',
    fingerprint: `fp-${giftCardId}`,
  };
  await db
    .insertInto('gift_cards')
    .values({
      ...card,
      id: giftCardId,
      number_ciphertext: 'x',
      number_key_id: uuidv7(),
      pin_ciphertext: 'x',
      pin_key_id: uuidv7(),
    })
    .execute();
  await db
    .insertInto('gift_card_redemptions')
    .values({ ...card, id: uuidv7(), transaction_id: tx.a.id, gift_card_id: giftCardId, amount: 100 })
    .execute();
}

beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t));
  const buyer = await t.request({
    method: 'POST',
    url: '/buyers',
    merchantAccountId: m,
    payload: {
      display_name: 'Stored Buyer',
      external_identifier: 'cust-b',
      billing_details: { email_address: 'stored@example.com' },
    },
  });
  const guest = {
    display_name: 'Ada Lovelace',
    external_identifier: 'guest-a',
    billing_details: { first_name: 'Ada', last_name: 'Lovelace', email_address: 'Ada@Example.com' },
  };
  const a = await createTransaction(
    t,
    m,
    { external_identifier: 'order-a', country: 'US', metadata: { team: 'red', tier: 'gold' }, buyer: guest },
    { 'x-forwarded-for': '203.0.113.7' },
  );
  expect(a.statusCode, a.body).toBe(201);
  tx.a = a.json();
  tx.b = await authorized(t, m, {
    intent: 'capture',
    currency: 'EUR',
    country: 'DE',
    amount: 2500,
    buyer_id: buyer.json().id,
    payment_source: 'moto',
    merchant_initiated: true,
    is_subsequent_payment: true,
    metadata: { team: 'blue' },
    payment_method: card('5555555555554444'),
  });
  tx.c = await authorized(t, m, { amount: 500, currency: 'GBP', payment_method: card('4000000000009995') });
  tx.d = await authorized(t, m, { intent: 'capture', amount: 1500 });
  const refund = await t.request({
    method: 'POST',
    url: `/transactions/${tx.d.id}/refunds`,
    merchantAccountId: m,
    payload: { amount: 500 },
  });
  expect(refund.statusCode, refund.body).toBe(201);
  // States the API cannot produce yet (disputes, reviews, 3DS with the mock, card country, sessions) are set directly.
  await set(tx.d.id, { disputed: true });
  await set(tx.a.id, {
    pending_review: true,
    three_d_secure: JSON.stringify({ version: '2.2.0' }),
    payment_method: JSON.stringify({ ...tx.a.payment_method, bin: '41111111', country: 'US' }),
  });
  await set(tx.c.id, { checkout_session_id: giftCardId, payment_method_id: giftCardId });
  await seedRelatedRows();
});
afterAll(async () => t.close());

describe('happy', () => {
  it('pages over 50 transactions newest update first, both directions', async () => {
    const { merchantAccountId } = await merchantWithMockCard(t);
    for (let i = 0; i < 50; i++) await authorized(t, merchantAccountId, { amount: 100 + i });
    const all = (await list('?limit=100', merchantAccountId)).items;
    expect(all).toHaveLength(50);
    const keys = all.map((item) => `${item.updated_at}|${item.id}`);
    expect(keys).toEqual([...keys].sort().reverse());

    const forward: Page[] = [await list('?limit=7', merchantAccountId)];
    while (forward.at(-1)!.next_cursor)
      forward.push(
        await list(`?limit=7&cursor=${encodeURIComponent(forward.at(-1)!.next_cursor!)}`, merchantAccountId),
      );
    expect(forward).toHaveLength(8);
    expect(forward[0]!.previous_cursor).toBeNull();
    expect(forward.flatMap((page) => page.items.map((item) => item.id))).toEqual(all.map((item) => item.id));

    const backward: Page[] = [forward.at(-1)!];
    while (backward.at(-1)!.previous_cursor)
      backward.push(
        await list(`?limit=7&cursor=${encodeURIComponent(backward.at(-1)!.previous_cursor!)}`, merchantAccountId),
      );
    expect(backward.map((page) => page.items.map((item) => item.id))).toEqual(
      [...forward].reverse().map((page) => page.items.map((item) => item.id)),
    );
  });

  it('lists summaries with the default limit', async () => {
    const page = await list('');
    expect(page).toMatchObject({ limit: 20, next_cursor: null, previous_cursor: null });
    expect(page.items.map((item) => item.id).sort()).toEqual(
      Object.values(tx)
        .map((row) => row.id)
        .sort(),
    );
    expect(page.items[0]).toMatchObject({ type: 'transaction', merchant_account_id: m });
    expect(page.items[0]).not.toHaveProperty('metadata');
  });

  it.each([
    ['status=capture_succeeded&status=authorization_declined', ['b', 'c', 'd']],
    ['amount_eq=2500', ['b']],
    ['amount_gte=1000&amount_lte=1500', ['a', 'd']],
    ['currency=EUR&currency=GBP', ['b', 'c']],
    ['country=US', ['a']],
    ['error_code=insufficient_funds', ['c']],
    ['external_identifier=order-a', ['a']],
    ['buyer_external_identifier=cust-b', ['b']],
    ['buyer_email_address=ADA@example.COM', ['a']],
    ['buyer_search=ada%20lovelace', ['a']],
    ['buyer_search=cust-b&buyer_search=stored@EXAMPLE.com&buyer_search=nobody', ['b']],
    ['ip_address=203.0.113.7', ['a']],
    ['disputed=true', ['d']],
    ['disputed=false&pending_review=false', ['b', 'c']],
    ['pending_review=true', ['a']],
    ['merchant_initiated=true', ['b']],
    ['is_subsequent_payment=true', ['b']],
    ['payment_source=moto&payment_source=recurring', ['b']],
    ['used_3ds=true', ['a']],
    ['used_3ds=false&has_refunds=false', ['b', 'c']],
    ['has_refunds=true', ['d']],
    ['has_settlements=true', ['b']],
    ['has_settlements=false&has_gift_card_redemptions=false', ['c', 'd']],
    ['has_gift_card_redemptions=true', ['a']],
    [`gift_card_id=${giftCardId}`, ['a']],
    ['gift_card_last4=4321', ['a']],
    ['gift_card_last4=0000', []],
    [`checkout_session_id=${giftCardId}`, ['c']],
    [`payment_method_id=${giftCardId}`, ['c']],
    ['metadata=%7B%22team%22%3A%22red%22%7D', ['a']],
    ['metadata=%7B%22team%22%3A%22red%22%7D&metadata=%7B%22tier%22%3A%22gold%22%7D', ['a']],
    ['metadata=%7B%22team%22%3A%22red%22%7D&metadata=%7B%22team%22%3A%22blue%22%7D', []],
    ['method=card', ['a', 'b', 'c', 'd']],
    ['payment_method_scheme=mastercard', ['b']],
    ['payment_method_bin=555555', ['b']],
    ['payment_method_bin=41111111', ['a', 'd']],
    ['payment_method_label=4444', ['b']],
    ['payment_method_country=US', ['a']],
    ['reconciliation_id=not-base62!', []],
    ['status=capture_succeeded&currency=USD&amount_gte=1000&disputed=true', ['d']],
  ])('filters by %s', async (query, expected) => {
    expect((await names(query)).sort()).toEqual([...expected].sort());
  });

  it('filters by ids, fingerprint, payment service and search', async () => {
    const { a, b, c } = tx;
    expect(await names(`id=${b.id}`)).toEqual(['b']);
    expect(await names(`reconciliation_id=${uuidToBase62(c.id)}`)).toEqual(['c']);
    expect(await names(`id=${b.id}&reconciliation_id=${uuidToBase62(c.id)}`)).toEqual([]);
    expect(
      (await names(`payment_method_fingerprint=${encodeURIComponent(a.payment_method.fingerprint)}`)).sort(),
    ).toEqual(['a', 'd']);
    expect(
      await names(
        `payment_service_id=${paymentServiceId}&payment_service_id=${uuidv7()}&status=authorization_declined`,
      ),
    ).toEqual(['c']);
    expect(await names(`payment_service_id=${uuidv7()}`)).toEqual([]);
    for (const term of [a.id, uuidToBase62(a.id), 'order-a', 'guest-a', 'ADA@EXAMPLE.COM'])
      expect(await names(`search=${encodeURIComponent(term)}`)).toEqual(['a']);
    const pspId = b.payment_service_transaction_id!;
    expect(pspId).toBeTruthy();
    expect(await names(`payment_service_transaction_id=${encodeURIComponent(pspId)}`)).toEqual(['b']);
    expect(await names(`search=${encodeURIComponent(pspId)}`)).toEqual(['b']);
    expect(await names('search=nothing-like-this')).toEqual([]);
  });

  it('filters by created and updated time ranges with offsets', async () => {
    const page = (await list('?limit=100')).items;
    const newest = page[0]!;
    const q = (key: string, at: string) => `${key}=${encodeURIComponent(at)}`;
    expect((await names(q('updated_at_gte', newest.updated_at))).length).toBeGreaterThanOrEqual(1);
    expect(await names(q('updated_at_gte', '2999-01-01T00:00:00+02:00'))).toEqual([]);
    expect(
      (
        await names(
          `${q('created_at_gte', '2000-01-01T00:00:00-05:00')}&${q('created_at_lte', '2999-01-01T00:00:00Z')}`,
        )
      ).length,
    ).toBe(4);
    expect(await names(q('created_at_lte', '2000-01-01T00:00:00Z'))).toEqual([]);
    expect((await names(q('updated_at_lte', newest.updated_at))).length).toBe(4);
  });

  it('pages within a filter and binds the cursor to it', async () => {
    const first = await list('?limit=1&status=capture_succeeded&status=authorization_succeeded');
    const second = await list(
      `?limit=1&status=authorization_succeeded&status=capture_succeeded&cursor=${encodeURIComponent(first.next_cursor!)}`,
    );
    expect(second.items).toHaveLength(1);
    const other = await t.request({
      method: 'GET',
      url: `/transactions?limit=1&status=capture_succeeded&cursor=${encodeURIComponent(first.next_cursor!)}`,
      merchantAccountId: m,
    });
    expect(other.statusCode).toBe(400);
    expect(other.json().details[0].pointer).toBe('/cursor');
  });
});

describe('errors', () => {
  const get = (query: string) => t.request({ method: 'GET', url: `/transactions${query}`, merchantAccountId: m });

  it.each(['not-json', '%5B%22a%22%5D', '%7B%22a%22%3A1%7D', 'null'])('answers 400 for metadata=%s', async (value) => {
    const res = await get(`?metadata=%7B%22ok%22%3A%22y%22%7D&metadata=${value}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ location: 'query', pointer: '/metadata/1' }] });
    expect(res.json().message).toContain('metadata');
  });

  it.each([
    ['created_at_gte=2024-01-01T00:00:00', 'created_at_gte'],
    ['updated_at_lte=yesterday', 'updated_at_lte'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['status=won', 'status'],
    ['buyer_id=not-a-uuid', 'buyer_id'],
    ['amount_gte=-1', 'amount_gte'],
    ['disputed=maybe', 'disputed'],
    ['currency=usd', 'currency'],
    ['payment_method_bin=41', 'payment_method_bin'],
  ])('answers 422 for %s', async (query, field) => {
    const res = await get(`?${query}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc.slice(0, 2)).toEqual(['query', field]);
  });

  it('answers 400 for a tampered cursor', async () => {
    const page = await list('?limit=1');
    const [payload, mac] = page.next_cursor!.split('.');
    const forged = Buffer.from(JSON.stringify({ d: 'n', k: ['2999-01-01T00:00:00.000Z', tx.a.id] })).toString(
      'base64url',
    );
    for (const cursor of [`${forged}.${mac}`, `${payload}.${mac}x`, 'garbage']) {
      const res = await get(`?limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].pointer).toBe('/cursor');
    }
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({ method: 'GET', url: '/transactions', merchantAccountId: m }),
    scope: 'transactions.read',
  });

  it('masks the buyer personal data without buyers.billing-details.read', async () => {
    const masked = (await list('?external_identifier=order-a', m, ['transactions.read'])).items[0]!;
    expect(masked.buyer.billing_details).toMatchObject({ first_name: 'A***', email_address: 'A***@E***.com' });
    const full = (await list('?external_identifier=order-a', m, ['transactions.read', 'buyers.billing-details.read']))
      .items[0]!;
    expect(full.buyer.billing_details).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email_address: 'Ada@Example.com',
    });
  });

  it("shows no other merchant account's transactions", async () => {
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    expect((await list('', other)).items).toEqual([]);
    expect((await list(`?id=${tx.a.id}`, other)).items).toEqual([]);
  });
});
