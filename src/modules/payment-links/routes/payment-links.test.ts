import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { createLink } from '../../../../test/helpers/payment-links.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { settleDueLinks, systemAudit } from '../payment-link-lifecycle.ts';
import { checkCreateBody } from '../payment-link-validation.ts';

let t: TestApp;
let merchant: string;
beforeAll(async () => {
  t = await buildTestApp();
  merchant = await createMerchantAccount(t.deps);
  // The tests read the links' webhook events: written only for a merchant account with a subscription.
  await subscribeToEvents(t, merchant);
});
afterAll(async () => t.close());

const FULL = {
  amount: 1299,
  currency: 'EUR',
  country: 'NL',
  intent: 'capture',
  payment_source: 'ecommerce',
  store: false,
  locale: 'es',
  merchant_name: 'Tienda Ada',
  merchant_url: 'https://shop.example',
  merchant_banner_url: 'https://shop.example/banner.png',
  merchant_color: '#FF5733',
  merchant_message: 'Gracias por tu compra',
  merchant_terms_and_conditions_url: 'https://shop.example/terms',
  merchant_favicon_url: 'https://shop.example/favicon.ico',
  external_identifier: 'order-42',
  statement_descriptor: { name: 'TIENDA ADA', description: 'Order 42' },
  return_url: 'https://shop.example/return?order=42',
  cart_items: [
    { name: 'Tea', quantity: 2, unit_amount: 500 },
    { name: 'Cup', quantity: 1, unit_amount: 299 },
  ],
  metadata: { order: '42' },
  buyer: {
    display_name: 'Ada Guest',
    external_identifier: 'guest-1',
    billing_details: { first_name: 'Ada', email_address: 'ada@example.com' },
    shipping_details: { first_name: 'Ada', address: { line1: '1 Canal St', country: 'NL' } },
  },
  installment_count: 3,
  connection_options: { 'mock-card': { note: 'x' } },
};
const eventsOf = async (id: string) =>
  await t.deps.db
    .selectFrom('events')
    .select(['kind', 'payload'])
    .where('resource_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const get = (id: string, m = merchant) =>
  t.request({ method: 'GET', url: `/payment-links/${id}`, merchantAccountId: m });
const expire = (id: string, m = merchant) =>
  t.request({ method: 'POST', url: `/payment-links/${id}/expire`, merchantAccountId: m });
const backdate = (id: string) =>
  t.deps.db
    .updateTable('payment_links')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', id)
    .execute();

describe('happy', () => {
  it('creates a link with every field, renders each, and reads it back', async () => {
    const link = await createLink(t, merchant, FULL);
    expect(link).toMatchObject({
      ...FULL,
      type: 'payment-link',
      status: 'active',
      buyer: {
        type: 'buyer',
        id: null,
        display_name: 'Ada Guest',
        external_identifier: 'guest-1',
        billing_details: expect.objectContaining({ first_name: 'Ada' }),
      },
      shipping_details: {
        type: 'shipping-details',
        id: null,
        first_name: 'Ada',
        address: expect.objectContaining({ line1: '1 Canal St' }),
      },
      buyer_id: null,
      statement_descriptor: { name: 'TIENDA ADA', description: 'Order 42' },
    });
    expect(link.url).toBe(`${t.config.publicUrl}/pay/${encodeURIComponent(merchant)}/${link.id}`);
    // A random (v4) id: the page's secret.
    expect(link.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await get(link.id)).json()).toEqual(link);
  });

  it('defaults: intent authorize, ecommerce, not stored, expiring 24 hours after creation; cart_items null', async () => {
    const link = await createLink(t, merchant);
    expect(link).toMatchObject({
      intent: 'authorize',
      payment_source: 'ecommerce',
      store: false,
      cart_items: null,
      locale: null,
      buyer: null,
    });
    const lifetime = Date.parse(link.expires_at) - Date.parse(link.created_at);
    expect(Math.abs(lifetime - 24 * 3600 * 1000)).toBeLessThan(2000);
  });

  it('copies a stored buyer by buyer_id, masking billing details without buyers.billing-details.read', async () => {
    const buyer = (
      await t.request({
        method: 'POST',
        url: '/buyers',
        merchantAccountId: merchant,
        payload: {
          display_name: 'Stored Ada',
          billing_details: { first_name: 'Ada', email_address: 'stored@example.com' },
        },
      })
    ).json();
    const res = await t.request({
      method: 'POST',
      url: '/payment-links',
      merchantAccountId: merchant,
      scopes: ['payment-links.write'],
      payload: { amount: 100, currency: 'USD', country: 'US', buyer_id: buyer.id },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ buyer_id: buyer.id, buyer: { id: buyer.id, display_name: 'Stored Ada' } });
    expect(res.body).not.toContain('stored@example.com');
    expect((await get(res.json().id)).body).toContain('stored@example.com');
  });

  it('writes payment-link.created and an audit entry', async () => {
    const link = await createLink(t, merchant);
    expect(await eventsOf(link.id)).toEqual([
      { kind: 'payment-link.created', payload: expect.objectContaining({ id: link.id, status: 'active' }) },
    ]);
    const audit = await t.request({
      method: 'GET',
      url: '/audit-logs?resource_type=payment-link',
      merchantAccountId: merchant,
    });
    expect(audit.json().items.map((e: { resource: { id: string } }) => e.resource.id)).toContain(link.id);
  });

  it('expires a link (204, payment-link.updated), and again (204, nothing new)', async () => {
    const link = await createLink(t, merchant);
    expect((await expire(link.id)).statusCode).toBe(204);
    expect((await get(link.id)).json().status).toBe('expired');
    expect((await expire(link.id)).statusCode).toBe(204);
    expect((await eventsOf(link.id)).map((e) => [e.kind, (e.payload as { status: string }).status])).toEqual([
      ['payment-link.created', 'active'],
      ['payment-link.updated', 'expired'],
    ]);
  });

  it('expires a link past expires_at on read, in lists, and by the job', async () => {
    const read = await createLink(t, merchant);
    await backdate(read.id);
    expect((await get(read.id)).json().status).toBe('expired');
    expect((await eventsOf(read.id)).map((e) => e.kind)).toEqual(['payment-link.created', 'payment-link.updated']);
    const listed = await createLink(t, merchant, { external_identifier: 'listed' });
    await backdate(listed.id);
    const page = (
      await t.request({ method: 'GET', url: '/payment-links?limit=100', merchantAccountId: merchant })
    ).json();
    expect(page.items.find((l: { id: string }) => l.id === listed.id).status).toBe('expired');
    expect(
      await settleDueLinks(t.deps, new Date(), systemAudit('expire-payment-links', 'job-1')),
    ).toBeGreaterThanOrEqual(1);
    const row = await t.deps.db
      .selectFrom('payment_links')
      .select('status')
      .where('id', '=', listed.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('expired');
  });

  it('lists last updated first, with filters and cursors', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await createLink(t, m, {
      amount: 100,
      currency: 'USD',
      buyer: { display_name: 'Grace Hopper', billing_details: { email_address: 'grace@example.com' } },
    });
    const b = await createLink(t, m, { amount: 200, currency: 'EUR', buyer: { external_identifier: 'cust-b' } });
    const c = await createLink(t, m, { amount: 300, currency: 'GBP' });
    await expire(a.id, m);
    const ids = async (query: string) =>
      (await t.request({ method: 'GET', url: `/payment-links?${query}`, merchantAccountId: m }))
        .json()
        .items.map((l: { id: string }) => l.id);
    expect(await ids('')).toEqual([a.id, c.id, b.id]);
    expect(await ids('status=expired')).toEqual([a.id]);
    expect(await ids('status=active&currency=GBP&currency=EUR')).toEqual([c.id, b.id]);
    expect(await ids('amount_gte=150&amount_lte=250')).toEqual([b.id]);
    expect(await ids('amount_eq=300')).toEqual([c.id]);
    expect(await ids('buyer_search=GRACE%20HOPPER&buyer_search=cust-b')).toEqual([a.id, b.id]);
    expect(await ids('buyer_search=grace@EXAMPLE.com')).toEqual([a.id]);
    const first = (await t.request({ method: 'GET', url: '/payment-links?limit=2', merchantAccountId: m })).json();
    expect(first.items).toHaveLength(2);
    const second = (
      await t.request({
        method: 'GET',
        url: `/payment-links?limit=2&cursor=${first.next_cursor}`,
        merchantAccountId: m,
      })
    ).json();
    expect(second.items.map((l: { id: string }) => l.id)).toEqual([b.id]);
    expect(
      (
        await t.request({
          method: 'GET',
          url: `/payment-links?limit=2&status=active&cursor=${first.next_cursor}`,
          merchantAccountId: m,
        })
      ).statusCode,
    ).toBe(400);
  });
});

describe('errors', () => {
  const post = (body: Record<string, unknown>) =>
    t.request({
      method: 'POST',
      url: '/payment-links',
      merchantAccountId: merchant,
      payload: { amount: 1000, currency: 'USD', country: 'US', ...body },
    });
  it.each([
    ['amount below 0', { amount: -1 }, ['body', 'amount']],
    ['amount above 99999999', { amount: 100_000_000 }, ['body', 'amount']],
    ['currency pattern', { currency: 'usd' }, ['body', 'currency']],
    ['unknown currency', { currency: 'XYZ' }, ['body', 'currency']],
    ['country pattern', { country: 'USA' }, ['body', 'country']],
    ['intent', { intent: 'sale' }, ['body', 'intent']],
    ['payment_source', { payment_source: 'pos' }, ['body', 'payment_source']],
    ['colour not hex', { merchant_color: 'red' }, ['body', 'merchant_color']],
    ['URL not absolute', { merchant_url: 'shop.example' }, ['body', 'merchant_url']],
    ['URL not http(s)', { return_url: 'javascript:alert(1)' }, ['body', 'return_url']],
    ['banner URL', { merchant_banner_url: 'ftp://x.example/b.png' }, ['body', 'merchant_banner_url']],
    ['terms URL', { merchant_terms_and_conditions_url: '/terms' }, ['body', 'merchant_terms_and_conditions_url']],
    ['favicon URL', { merchant_favicon_url: 'data:image/png;base64,AA' }, ['body', 'merchant_favicon_url']],
    ['merchant_name too long', { merchant_name: 'x'.repeat(101) }, ['body', 'merchant_name']],
    ['merchant_message too long', { merchant_message: 'x'.repeat(256) }, ['body', 'merchant_message']],
    ['external_identifier too long', { external_identifier: 'x'.repeat(201) }, ['body', 'external_identifier']],
    ['locale', { locale: 'english please' }, ['body', 'locale']],
    ['installment_count 0', { installment_count: 0 }, ['body', 'installment_count']],
    ['installment_count 101', { installment_count: 101 }, ['body', 'installment_count']],
    ['expires_at not a date-time', { expires_at: 'tomorrow' }, ['body', 'expires_at']],
    ['expires_at in the past', { expires_at: new Date(Date.now() - 60_000).toISOString() }, ['body', 'expires_at']],
    [
      'expires_at beyond 90 days',
      { expires_at: new Date(Date.now() + 91 * 86_400_000).toISOString() },
      ['body', 'expires_at'],
    ],
    [
      'buyer and buyer_id',
      { buyer: { display_name: 'x' }, buyer_id: '0190a0b0-0000-7000-8000-000000000000' },
      ['body', 'buyer_id'],
    ],
    ['buyer_id not a uuid', { buyer_id: 'nope' }, ['body', 'buyer_id']],
    ['cart item', { cart_items: [{ name: 'x', quantity: 0, unit_amount: 1 }] }, ['body', 'cart_items', 0, 'quantity']],
    ['metadata value', { metadata: { a: 1 } }, ['body', 'metadata', 'a']],
    ['connection_options key', { connection_options: { Mock_Card: {} } }, ['body', 'connection_options', 'Mock_Card']],
    [
      'statement descriptor',
      { statement_descriptor: { name: 'x'.repeat(23) } },
      ['body', 'statement_descriptor', 'name'],
    ],
    ['recurring without store', { payment_source: 'recurring' }, ['body', 'store']],
    ['amount missing', { amount: undefined }, ['body', 'amount']],
  ])('422 for %s', async (_label, body, loc) => {
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(422);
    expect(
      res.json().detail.map((d: { loc: unknown }) => d.loc),
      res.body,
    ).toContainEqual(loc);
  });

  it('refuses http URLs in production (https only)', () => {
    const production = {
      ...loadConfig({ VAULT_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'), ENVIRONMENT: 'production' }),
    };
    expect(() =>
      checkCreateBody(
        production,
        { amount: 1, currency: 'USD', country: 'US', return_url: 'http://shop.example/r' },
        new Date(),
      ),
    ).toThrow(/return_url: The URL must use https/);
    expect(() =>
      checkCreateBody(
        production,
        { amount: 1, currency: 'USD', country: 'US', return_url: 'https://shop.example/r' },
        new Date(),
      ),
    ).not.toThrow();
    expect(() =>
      checkCreateBody(
        t.config,
        { amount: 1, currency: 'USD', country: 'US', return_url: 'http://localhost:3000/r' },
        new Date(),
      ),
    ).not.toThrow();
  });

  it('404 for an unknown link and an unknown buyer_id', async () => {
    const id = crypto.randomUUID();
    expect((await get(id)).json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await expire(id)).statusCode).toBe(404);
    expect((await post({ buyer_id: id })).statusCode).toBe(404);
  });

  it('refuses to expire a completed link (400)', async () => {
    const link = await createLink(t, merchant);
    await t.deps.db.updateTable('payment_links').set({ status: 'completed' }).where('id', '=', link.id).execute();
    const res = await expire(link.id);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/completed link cannot be expired/);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    scope: 'payment-links.write',
    request: () => ({
      method: 'POST',
      url: '/payment-links',
      headers: { 'x-svc-merchant-account-id': merchant },
      payload: { amount: 1, currency: 'USD', country: 'US' },
    }),
  });
  runScopeTests(() => t, {
    scope: 'payment-links.read',
    request: () => ({ method: 'GET', url: '/payment-links', headers: { 'x-svc-merchant-account-id': merchant } }),
  });
  runScopeTests(() => t, {
    scope: 'payment-links.read',
    request: async () => ({
      method: 'GET',
      url: `/payment-links/${(await createLink(t, merchant)).id}`,
      headers: { 'x-svc-merchant-account-id': merchant },
    }),
  });
  runScopeTests(() => t, {
    scope: 'payment-links.write',
    request: async () => ({
      method: 'POST',
      url: `/payment-links/${(await createLink(t, merchant)).id}/expire`,
      headers: { 'x-svc-merchant-account-id': merchant },
    }),
  });

  it("answers 404 for another merchant account's link, and lists none of it", async () => {
    const link = await createLink(t, merchant);
    const other = await createMerchantAccount(t.deps);
    expect((await get(link.id, other)).statusCode).toBe(404);
    expect((await expire(link.id, other)).statusCode).toBe(404);
    expect((await get(link.id)).json().status).toBe('active');
    expect((await t.request({ method: 'GET', url: '/payment-links', merchantAccountId: other })).json().items).toEqual(
      [],
    );
  });
});
