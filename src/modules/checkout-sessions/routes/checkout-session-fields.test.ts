import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import type { RequestContext } from '../../../context.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { consumeCheckoutSessionCard } from '../checkout-sessions.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const card = (overrides: Record<string, unknown> = {}) => ({
  method: 'card',
  number: VISA,
  expiration_date: '12/39',
  security_code: '737',
  ...overrides,
});
const session = async (merchantAccountId?: string, payload: Record<string, unknown> = {}): Promise<string> =>
  (
    await t.request({
      method: 'POST',
      url: '/checkout/sessions',
      payload,
      ...(merchantAccountId ? { merchantAccountId } : {}),
    })
  ).json().id;
const addBuyer = async (external_identifier?: string, merchantAccountId?: string): Promise<string> =>
  (
    await t.request({
      method: 'POST',
      url: '/buyers',
      payload: { display_name: 'Buyer', ...(external_identifier ? { external_identifier } : {}) },
      ...(merchantAccountId ? { merchantAccountId } : {}),
    })
  ).json().id;
const storeCard = async (buyer_id: string | null, merchantAccountId?: string) =>
  (
    await t.request({
      method: 'POST',
      url: '/payment-methods',
      payload: { method: 'card', number: MASTERCARD, expiration_date: '10/38', ...(buyer_id ? { buyer_id } : {}) },
      ...(merchantAccountId ? { merchantAccountId } : {}),
    })
  ).json();
const send = (
  id: string,
  payment_method: unknown,
  method: 'POST' | 'PUT' = 'POST',
  headers: Record<string, string> = {},
) => t.app.inject({ method, url: `/checkout/sessions/${id}/fields`, payload: { payment_method }, headers });
const row = (id: string) =>
  t.deps.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const expire = (id: string) =>
  t.deps.db
    .updateTable('checkout_sessions')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', id)
    .execute();
const ctxOf = (merchantAccountId = 'default') =>
  ({
    deps: t.deps,
    requestId: 'test',
    log: t.app.log,
    principal: null,
    merchantAccountId,
    operationId: 'test',
    successStatus: 200,
    idempotency: null,
  }) as RequestContext;

/** Waits for a fresh rate limit window when the current one is about to end, so a test stays in one window. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('happy', () => {
  it('takes a card without a bearer token, encrypted and bound to the session', async () => {
    const id = await session();
    const res = await send(id, card());
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    const stored = await row(id);
    expect(JSON.stringify(stored)).not.toContain(VISA);
    expect(stored).toMatchObject({
      method: 'card',
      scheme: 'visa',
      last4: '1111',
      bin: '41111111',
      expiration_date: '12/39',
    });
    const plain = await t.deps.vault.decrypt(
      t.deps.db,
      'default',
      { ciphertext: stored.number_ciphertext!, keyId: stored.number_key_id! },
      { table: 'checkout_sessions', column: 'number', rowId: id },
    );
    expect(plain).toBe(VISA);
    const codes = await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', id).execute();
    expect(codes).toHaveLength(1);
    expect(codes[0]!.owner_type).toBe('checkout-session');
    expect(codes[0]!.expires_at.getTime()).toBeLessThanOrEqual(stored.expires_at.getTime());
  });

  it('replaces the card with PUT, dropping the old security code when none is sent', async () => {
    const id = await session();
    await send(id, card());
    expect((await send(id, card({ number: MASTERCARD, security_code: null }), 'PUT')).statusCode).toBe(204);
    expect(await row(id)).toMatchObject({ scheme: 'mastercard', last4: '4444' });
    expect(await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', id).execute()).toEqual(
      [],
    );
  });

  it("takes a stored card of the session's buyer with a fresh security code", async () => {
    const buyer = await addBuyer();
    const method = await storeCard(buyer);
    const id = await session(undefined, { buyer_id: buyer });
    expect((await send(id, { method: 'id', id: method.id, security_code: '4321' })).statusCode).toBe(204);
    const resource = (await t.request({ method: 'GET', url: `/checkout/sessions/${id}` })).json();
    expect(resource.payment_method).toMatchObject({
      id: method.id,
      method: 'card',
      scheme: 'mastercard',
      label: '4444',
      expiration_date: '10/38',
      fingerprint: method.fingerprint,
    });
    expect((await row(id)).number_ciphertext).toBeNull();
  });

  it('releases the card once to a transaction and purges it (consumeCheckoutSessionCard)', async () => {
    const id = await session();
    await send(id, card());
    const released = await withTransaction(t.deps.db, (tx) => consumeCheckoutSessionCard(tx, ctxOf(), id));
    expect(released).toEqual({
      method: 'card',
      number: VISA,
      expirationDate: '12/39',
      scheme: 'visa',
      securityCode: '737',
    });
    expect(await row(id)).toMatchObject({ method: null, number_ciphertext: null, last4: null });
    await expect(withTransaction(t.deps.db, (tx) => consumeCheckoutSessionCard(tx, ctxOf(), id))).rejects.toMatchObject(
      { code: 'bad_request' },
    );
  });
});

describe('errors', () => {
  it('validates the card exactly like a stored card, without echoing it', async () => {
    const id = await session();
    const luhn = await send(id, card({ number: '4111111111111112' }));
    expect(luhn.statusCode).toBe(400);
    expect(luhn.json()).toMatchObject({
      code: 'bad_request',
      details: [{ location: 'body', pointer: '/payment_method/number', type: 'card_number_luhn' }],
    });
    expect(luhn.body).not.toContain('4111111111111112');
    const expired = await send(id, card({ expiration_date: '01/20' }));
    expect(expired.json().details[0]).toMatchObject({
      pointer: '/payment_method/expiration_date',
      type: 'card_expired',
    });
    const shape = await send(id, card({ security_code: '12' }));
    expect(shape.statusCode).toBe(422);
    expect(shape.json().detail[0].loc).toEqual(['body', 'payment_method', 'security_code']);
    expect((await send(id, { method: 'paypal' })).statusCode).toBe(422);
    expect((await row(id)).method).toBeNull();
  });

  it("answers 404 for a stored method that is not the merchant account's", async () => {
    const other = await createMerchantAccount(t.deps);
    const theirs = (
      await t.request({
        method: 'POST',
        url: '/payment-methods',
        payload: { method: 'card', number: VISA, expiration_date: '12/39' },
        merchantAccountId: other,
      })
    ).json();
    const id = await session();
    expect((await send(id, { method: 'id', id: theirs.id })).statusCode).toBe(404);
    expect((await send(id, { method: 'id', id: uuidv7() })).statusCode).toBe(404);
  });
});

describe('a stored card is usable only by its own buyer', () => {
  it('answers 404 for a stored card of another buyer, of no buyer, or to a session bound to no buyer, as for an unknown id', async () => {
    const a = await addBuyer();
    const b = await addBuyer();
    const ofA = (await storeCard(a)).id;
    const ofNoOne = (await storeCard(null)).id;
    const notFound = (id: string) => ({
      type: 'error',
      code: 'not_found',
      status: 404,
      message: `The payment method ${id} could not be found`,
      details: [],
    });
    const ofB = await session(undefined, { buyer_id: b });
    const unbound = await session();
    for (const [sessionId, cardId] of [
      [ofB, ofA],
      [ofB, ofNoOne],
      [unbound, ofA],
      [unbound, ofNoOne],
    ] as const) {
      const res = await send(sessionId, { method: 'id', id: cardId, security_code: '123' });
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual(notFound(cardId));
      expect((await row(sessionId)).method).toBeNull();
    }
    const unknown = uuidv7();
    expect((await send(ofB, { method: 'id', id: unknown })).json()).toEqual(notFound(unknown));
    expect(
      await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', 'in', [ofB, unbound]).execute(),
    ).toEqual([]);
  });

  it("charges nothing when a browser puts buyer A's card into a checkout session made for another checkout (the confirmed path)", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ofA = (await storeCard(await addBuyer(undefined, m), m)).id;
    const id = await session(m);
    expect((await send(id, { method: 'id', id: ofA })).statusCode).toBe(404);
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    try {
      const paid = await t.request({
        method: 'POST',
        url: '/transactions',
        merchantAccountId: m,
        payload: { amount: 1000, currency: 'USD', payment_method: { method: 'checkout-session', id } },
      });
      expect(paid.statusCode, paid.body).toBe(400);
      expect(paid.json().details[0]).toMatchObject({ type: 'checkout_session_no_card' });
      expect(authorize).not.toHaveBeenCalled();
    } finally {
      authorize.mockRestore();
    }
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_account_id', '=', m).execute(),
    ).toEqual([]);
  });

  it('binds a session to its buyer by buyer_id, or by buyer.external_identifier naming a stored buyer', async () => {
    const buyer = await addBuyer('shopper-42');
    const method = (await storeCard(buyer)).id;
    const byId = await session(undefined, { buyer_id: buyer });
    expect((await send(byId, { method: 'id', id: method })).statusCode).toBe(204);
    const byExternal = await session(undefined, {
      buyer: { display_name: 'Shopper', external_identifier: 'shopper-42' },
    });
    expect((await send(byExternal, { method: 'id', id: method })).statusCode).toBe(204);
    const guest = await session(undefined, {
      buyer: { display_name: 'Shopper', external_identifier: 'nobody-stored' },
    });
    expect((await send(guest, { method: 'id', id: method })).statusCode).toBe(404);
  });

  it("refuses a session's stored card to a transaction once the session is bound to another buyer", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const a = await addBuyer(undefined, m);
    const ofA = (await storeCard(a, m)).id;
    const id = await session(m, { buyer_id: a });
    expect((await send(id, { method: 'id', id: ofA })).statusCode).toBe(204);
    const b = await addBuyer(undefined, m);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/checkout/sessions/${id}`,
          merchantAccountId: m,
          payload: { buyer_id: b },
        })
      ).statusCode,
    ).toBe(200);
    const paid = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'USD', payment_method: { method: 'checkout-session', id } },
    });
    expect(paid.statusCode, paid.body).toBe(404);
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_account_id', '=', m).execute(),
    ).toEqual([]);
  });
});

describe('security', () => {
  it('answers 401 for an unknown, malformed or expired session id', async () => {
    const unauthorized = {
      type: 'error',
      code: 'unauthorized',
      status: 401,
      message: 'No valid API authentication found',
      details: [],
    };
    expect((await send(uuidv7(), card())).json()).toEqual(unauthorized);
    expect((await send('not-a-uuid', card())).statusCode).toBe(401);
    const id = await session();
    await expire(id);
    expect((await send(id, card())).statusCode).toBe(401);
    expect((await send(id, card(), 'PUT')).statusCode).toBe(401);
    expect((await row(id)).method).toBeNull();
  });

  it('refuses to act on another merchant account than the session', async () => {
    const id = await session();
    const other = await createMerchantAccount(t.deps);
    expect((await send(id, card(), 'POST', { 'x-svc-merchant-account-id': other })).statusCode).toBe(403);
  });

  it('allows 50 calls a minute per session; the 51st gets 429, another session has its own budget', async () => {
    await freshWindow();
    const id = await session();
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++)
      statuses.push(
        (await send(id, i % 2 === 0 ? { method: 'nope' } : card(), i % 3 === 0 ? 'PUT' : 'POST')).statusCode,
      );
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const over = await send(id, card());
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await send(await session(), card())).statusCode).toBe(204);
  });

  it('limits failed session lookups to 50 a minute per client address, then refuses its misses but still serves its real sessions', async () => {
    await freshWindow();
    const from = (remoteAddress: string, id: string) =>
      t.app.inject({
        method: 'POST',
        url: `/checkout/sessions/${id}/fields`,
        payload: { payment_method: card() },
        remoteAddress,
      });
    const attacker = '203.0.113.7';
    const id = await session();
    // A found id does not spend the budget; unknown, malformed and expired ids do.
    expect((await from(attacker, id)).statusCode).toBe(204);
    const expired = await session();
    await expire(expired);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++)
      statuses.push((await from(attacker, i === 0 ? expired : i % 7 === 0 ? 'not-a-uuid' : uuidv7())).statusCode);
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    const over = await from(attacker, uuidv7());
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: 'too_many_requests', status: 429 });
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Out of misses, the address still has its real sessions served (http/failed-lookups.ts says why that is safe).
    expect((await from(attacker, id)).statusCode).toBe(204);
    expect((await from(attacker, uuidv7())).statusCode).toBe(429);
    expect((await from('203.0.113.8', id)).statusCode).toBe(204);
    expect((await from('203.0.113.8', uuidv7())).statusCode).toBe(401);
  });

  it('never lets a card number or security code reach a response, a log line, an audit entry or a job', async () => {
    const numbers = [VISA, MASTERCARD, '378282246310005'];
    const bodies: string[] = [];
    for (const number of numbers) {
      const id = await session();
      bodies.push((await send(id, card({ number, security_code: '9876' }))).body);
      bodies.push((await t.request({ method: 'GET', url: `/checkout/sessions/${id}` })).body);
      bodies.push(
        (await t.request({ method: 'POST', url: '/payment-methods', payload: { method: 'checkout-session', id } }))
          .body,
      );
      bodies.push((await t.request({ method: 'DELETE', url: `/checkout/sessions/${id}` })).body);
    }
    bodies.push((await send(await session(), card({ number: '4111111111111112' }))).body);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const jobs = await sql<{ text: string }>`SELECT row_to_json(j)::text AS text FROM jobs j`.execute(t.deps.db);
    const everything = [...bodies, ...t.logs, ...audit.rows.map((r) => r.text), ...jobs.rows.map((r) => r.text)].join(
      '\n',
    );
    for (const number of [...numbers, '4111111111111112']) expect(everything).not.toContain(number);
    expect(everything).not.toContain('"9876"');
  });
});
