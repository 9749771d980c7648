import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { purgeExpiredCheckoutSessions } from '../../../jobs/purge-expired-checkout-sessions.job.ts';
import { deleteExpiredCheckoutSessions } from '../checkout-sessions.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const CART = [{ name: 'Socks', quantity: 2, unit_amount: 500, product_type: 'physical' }];

const create = (payload?: object, merchantAccountId?: string) =>
  t.request({
    method: 'POST',
    url: '/checkout/sessions',
    ...(payload ? { payload } : {}),
    ...(merchantAccountId ? { merchantAccountId } : {}),
  });
const get = (id: string, merchantAccountId?: string) =>
  t.request({ method: 'GET', url: `/checkout/sessions/${id}`, ...(merchantAccountId ? { merchantAccountId } : {}) });
const fields = (id: string, payment_method: object) =>
  t.app.inject({ method: 'POST', url: `/checkout/sessions/${id}/fields`, payload: { payment_method } });
const expire = (id: string) =>
  t.deps.db
    .updateTable('checkout_sessions')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', id)
    .execute();

describe('happy', () => {
  it('creates a session without a body, expiring in one hour by default', async () => {
    const res = await create();
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      type: 'checkout-session',
      cart_items: null,
      metadata: null,
      buyer: null,
      airline: null,
      amount: null,
      currency: null,
      payment_method: null,
    });
    const ttl = Date.parse(body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3590_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    expect((await get(body.id)).json()).toEqual(body);
  });

  it('stores the checkout details and honours expires_in', async () => {
    const payload = {
      cart_items: CART,
      metadata: { order: 'A-1' },
      buyer: { display_name: 'Ada', billing_details: { first_name: 'Ada', email_address: 'ada@example.com' } },
      airline: { booking_code: 'X1Y2Z3', passengers: [{ first_name: 'Ada' }] },
      amount: 1000,
      currency: 'EUR',
      expires_in: 600,
    };
    const body = (await create(payload)).json();
    expect(body).toMatchObject({
      cart_items: [{ name: 'Socks', quantity: 2, unit_amount: 500, product_type: 'physical' }],
      metadata: { order: 'A-1' },
      amount: 1000,
      currency: 'EUR',
    });
    expect(body.buyer).toMatchObject({ display_name: 'Ada', billing_details: { first_name: 'Ada' } });
    expect(body.airline).toMatchObject({ booking_code: 'X1Y2Z3', passengers: [{ first_name: 'Ada' }] });
    expect(Date.parse(body.expires_at) - Date.now()).toBeLessThanOrEqual(600_000);
  });

  it('updates only the fields sent, and expires_in restarts the clock', async () => {
    const { id } = (await create({ amount: 1000, currency: 'EUR', metadata: { a: '1' }, expires_in: 60 })).json();
    const res = await t.request({
      method: 'PUT',
      url: `/checkout/sessions/${id}`,
      payload: { amount: 2000, metadata: null, expires_in: 1800 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id, amount: 2000, currency: 'EUR', metadata: null });
    expect(Date.parse(res.json().expires_at) - Date.now()).toBeGreaterThan(1700_000);
  });

  it('shows card data only as scheme, bin, last 4, expiry and fingerprint', async () => {
    const { id } = (await create()).json();
    expect(
      (await fields(id, { method: 'card', number: VISA, expiration_date: '12/39', security_code: '123' })).statusCode,
    ).toBe(204);
    const res = await get(id);
    expect(res.json().payment_method).toEqual({
      type: 'payment-method',
      id: null,
      method: 'card',
      scheme: 'visa',
      label: '1111',
      expiration_date: '12/39',
      fingerprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      details: { bin: '41111111', card_country: null, card_type: null, card_issuer_name: null },
    });
    expect(res.body).not.toContain(VISA);
  });

  it('deletes a session with its card data and security code', async () => {
    const { id } = (await create()).json();
    await fields(id, { method: 'card', number: VISA, expiration_date: '12/39', security_code: '123' });
    const res = await t.request({ method: 'DELETE', url: `/checkout/sessions/${id}` });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(id)).statusCode).toBe(404);
    expect(await t.deps.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).execute()).toEqual([]);
    expect(await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', id).execute()).toEqual(
      [],
    );
  });

  it('purges the card data and security code of expired sessions in the recurring job', async () => {
    const { id } = (await create()).json();
    const live = (await create()).json();
    await fields(id, { method: 'card', number: VISA, expiration_date: '12/39', security_code: '123' });
    await fields(live.id, { method: 'card', number: VISA, expiration_date: '12/39', security_code: '456' });
    await expire(id);
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    await purgeExpiredCheckoutSessions.handle({}, { deps: t.deps, jobId: 'test', attempt: 1, log });
    const row = await t.deps.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect([row.method, row.number_ciphertext, row.number_key_id, row.last4, row.bin]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', id).execute()).toEqual(
      [],
    );
    const kept = await t.deps.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('id', '=', live.id)
      .executeTakeFirstOrThrow();
    expect(kept.number_ciphertext).toMatch(/^v1\./);
    expect(
      await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', live.id).execute(),
    ).toHaveLength(1);
  });
});

describe('expired sessions', () => {
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const expireAt = (id: string, at: Date) =>
    t.deps.db.updateTable('checkout_sessions').set({ expires_at: at }).where('id', '=', id).execute();
  const exists = async (id: string) =>
    (await t.deps.db.selectFrom('checkout_sessions').select('id').where('id', '=', id).execute()).length === 1;

  it('deletes sessions 24 hours after they expired, card data or not, and keeps younger ones', async () => {
    const old = (await create({ amount: 1 })).json().id;
    const oldWithCard = (await create()).json().id;
    const recent = (await create()).json().id;
    const live = (await create()).json().id;
    await fields(oldWithCard, { method: 'card', number: VISA, expiration_date: '12/39', security_code: '123' });
    const dayAgo = Date.now() - 24 * 3600_000;
    await expireAt(old, new Date(dayAgo - 1000));
    await expireAt(oldWithCard, new Date(dayAgo - 60_000));
    await expireAt(recent, new Date(dayAgo + 60_000));
    await purgeExpiredCheckoutSessions.handle({}, { deps: t.deps, jobId: 'test', attempt: 1, log });
    expect([await exists(old), await exists(oldWithCard), await exists(recent), await exists(live)]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(
      await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', oldWithCard).execute(),
    ).toEqual([]);
    expect((await t.request({ method: 'DELETE', url: `/checkout/sessions/${old}` })).statusCode).toBe(404);
  });

  it('deletes in batches until none is left', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create()).json().id);
    for (const id of ids) await expireAt(id, new Date(Date.now() - 25 * 3600_000));
    expect(await deleteExpiredCheckoutSessions(t.deps, new Date())).toBeGreaterThanOrEqual(3);
    expect(await deleteExpiredCheckoutSessions(t.deps, new Date())).toBe(0);
  });
});

describe('guest buyer personal data', () => {
  const buyer = {
    display_name: 'Ada',
    external_identifier: 'guest-1',
    billing_details: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email_address: 'ada@example.com',
      phone_number: '+447700900123',
      address: { line1: '1 Main St', postal_code: '94107', country: 'GB' },
      tax_id: { value: 'GB123456789', kind: 'gb.vat' },
    },
    shipping_details: {
      first_name: 'Ada',
      email_address: 'ada@example.com',
      address: { city: 'London', country: 'GB' },
    },
  };

  it('masks billing and shipping details without buyers.billing-details.read, on every response', async () => {
    const scopes = ['checkout-sessions.read', 'checkout-sessions.write'];
    const created = await t.request({ method: 'POST', url: '/checkout/sessions', payload: { buyer }, scopes });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const updated = await t.request({ method: 'PUT', url: `/checkout/sessions/${id}`, payload: { amount: 1 }, scopes });
    const read = await t.request({ method: 'GET', url: `/checkout/sessions/${id}`, scopes });
    for (const res of [created, updated, read]) {
      expect(res.json().buyer).toEqual({
        display_name: 'Ada',
        external_identifier: 'guest-1',
        account_number: null,
        billing_details: {
          first_name: 'A***',
          last_name: 'L***',
          email_address: 'a***@e***.com',
          phone_number: '+***23',
          address: {
            line1: '1***',
            postal_code: '94***',
            country: 'GB',
            city: null,
            state: null,
            state_code: null,
            house_number_or_name: null,
            line2: null,
            organization: null,
          },
          tax_id: { value: '***89', kind: 'gb.vat' },
        },
        shipping_details: {
          first_name: 'A***',
          last_name: null,
          email_address: 'a***@e***.com',
          phone_number: null,
          address: expect.objectContaining({ city: 'L***', country: 'GB' }),
        },
      });
      expect(res.body).not.toContain('Lovelace');
    }
  });

  it('shows them in full with buyers.billing-details.read', async () => {
    const { id } = (await create({ buyer })).json();
    const res = await t.request({
      method: 'GET',
      url: `/checkout/sessions/${id}`,
      scopes: ['checkout-sessions.read', 'buyers.billing-details.read'],
    });
    expect(res.json().buyer.billing_details).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email_address: 'ada@example.com',
      phone_number: '+447700900123',
      tax_id: { value: 'GB123456789' },
    });
    expect(res.json().buyer.shipping_details).toMatchObject({ first_name: 'Ada', address: { city: 'London' } });
  });
});

describe('errors', () => {
  it('answers 404 for an unknown or expired session on get and update; delete still purges an expired one', async () => {
    expect((await get(UNKNOWN)).statusCode).toBe(404);
    const { id } = (await create()).json();
    await expire(id);
    expect((await get(id)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'PUT', url: `/checkout/sessions/${id}`, payload: { amount: 1 } })).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/checkout/sessions/${id}` })).statusCode).toBe(204);
    expect((await t.request({ method: 'DELETE', url: `/checkout/sessions/${id}` })).statusCode).toBe(404);
  });

  it('validates the body', async () => {
    const bad = await create({
      amount: -1,
      currency: 'XXX',
      expires_in: 0,
      cart_items: [{ name: 'x', quantity: 0, unit_amount: 1 }],
    });
    expect(bad.statusCode).toBe(422);
    const locs = bad.json().detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining(['body.amount', 'body.currency', 'body.expires_in', 'body.cart_items.0.quantity']),
    );
    expect((await create({ expires_in: 86_401 })).statusCode).toBe(422);
    expect((await get('not-a-uuid')).statusCode).toBe(422);
  });
});

describe('security', () => {
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/checkout/sessions', payload: {} }),
      scope: 'checkout-sessions.write',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `/checkout/sessions/${UNKNOWN}` }),
      scope: 'checkout-sessions.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'PUT', url: `/checkout/sessions/${UNKNOWN}`, payload: {} }),
      scope: 'checkout-sessions.write',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'DELETE', url: `/checkout/sessions/${UNKNOWN}` }),
      scope: 'checkout-sessions.write',
    }));

  it("answers 404 for another merchant account's session", async () => {
    const mine = await createMerchantAccount(t.deps);
    const { id } = (await create({ amount: 1 }, mine)).json();
    expect((await get(id)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'PUT', url: `/checkout/sessions/${id}`, payload: { amount: 2 } })).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/checkout/sessions/${id}` })).statusCode).toBe(404);
    expect((await get(id, mine)).json().amount).toBe(1);
  });

  it('answers 404 for a payment service or a buyer of another merchant account, on create and update, and stores nothing', async () => {
    const a = await createMerchantAccount(t.deps);
    const b = await createMerchantAccount(t.deps);
    const serviceOfA = (
      await t.request({
        method: 'POST',
        url: '/payment-services',
        merchantAccountId: a,
        payload: {
          display_name: 'A',
          payment_service_definition_id: 'mock-card',
          fields: [{ key: 'merchant_id', value: 'a' }],
          accepted_currencies: ['USD'],
          accepted_countries: ['US'],
        },
      })
    ).json().id;
    const buyerOfA = (
      await t.request({ method: 'POST', url: '/buyers', merchantAccountId: a, payload: { display_name: 'Buyer of A' } })
    ).json().id;
    const refused = [
      [{ payment_service_id: serviceOfA }, `The payment service ${serviceOfA} could not be found`],
      [{ payment_service_id: 'not-a-uuid' }, 'The payment service not-a-uuid could not be found'],
      [{ buyer_id: buyerOfA }, `The buyer ${buyerOfA} could not be found`],
    ] as const;
    const { id } = (await create({ amount: 1 }, b)).json();
    for (const [payload, message] of refused) {
      for (const res of [
        await create(payload, b),
        await t.request({ method: 'PUT', url: `/checkout/sessions/${id}`, payload, merchantAccountId: b }),
      ]) {
        expect(res.statusCode, res.body).toBe(404);
        expect(res.json()).toEqual({ type: 'error', code: 'not_found', status: 404, message, details: [] });
      }
    }
    expect((await get(id, b)).json()).toMatchObject({ payment_service_id: null, buyer_id: null });
    const count = await t.deps.db
      .selectFrom('checkout_sessions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('merchant_account_id', '=', b)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    // Its own account's service and buyer are taken.
    const own = (await create({ payment_service_id: serviceOfA, buyer_id: buyerOfA }, a)).json();
    expect(own).toMatchObject({ payment_service_id: serviceOfA, buyer_id: buyerOfA });
  });

  it('gives sessions random UUID v4 ids (122 random bits; the id is a credential)', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, async () => (await create()).json().id as string));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(5);
  });

  it('audits create, update and delete, without card data', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const { id } = (await create({}, merchant)).json();
    await fields(id, { method: 'card', number: VISA, expiration_date: '12/39', security_code: '9876' });
    await t.request({
      method: 'PUT',
      url: `/checkout/sessions/${id}`,
      payload: { amount: 5 },
      merchantAccountId: merchant,
    });
    await t.request({ method: 'DELETE', url: `/checkout/sessions/${id}`, merchantAccountId: merchant });
    const entries = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'resource_type', 'resource_id', 'operation_id'])
      .where('merchant_account_id', '=', merchant)
      .orderBy('id')
      .execute();
    expect(entries).toEqual([
      { action: 'created', resource_type: 'checkout-session', resource_id: id, operation_id: 'createCheckoutSession' },
      { action: 'updated', resource_type: 'checkout-session', resource_id: id, operation_id: 'updateCheckoutSession' },
      { action: 'deleted', resource_type: 'checkout-session', resource_id: id, operation_id: 'deleteCheckoutSession' },
    ]);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const jobs = await sql<{ text: string }>`SELECT row_to_json(j)::text AS text FROM jobs j`.execute(t.deps.db);
    const everything = [...t.logs, ...audit.rows.map((r) => r.text), ...jobs.rows.map((r) => r.text)].join('\n');
    expect(everything).not.toContain(VISA);
    expect(everything).not.toContain('"9876"');
  });
});
