import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { containsSecret } from '../../../../test/helpers/leak-scan.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { DecryptionError } from '../../../vault/crypto.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const AMEX = '378282246310005';
const card = (overrides: Record<string, unknown> = {}) => ({
  method: 'card',
  number: VISA,
  expiration_date: '12/39',
  ...overrides,
});
const store = (payload: object, merchantAccountId?: string) =>
  t.request({ method: 'POST', url: '/payment-methods', payload, ...(merchantAccountId ? { merchantAccountId } : {}) });

describe('happy', () => {
  it('stores a card and describes it without its number', async () => {
    const res = await store(card({ external_identifier: 'card-1', card_type: 'credit' }));
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      type: 'payment-method',
      method: 'card',
      mode: 'card',
      status: 'succeeded',
      scheme: 'visa',
      label: '1111',
      expiration_date: '12/39',
      external_identifier: 'card-1',
      details: { bin: '41111111', card_type: 'credit', card_issuer_name: null },
      usage_count: 0,
      cit_usage_count: 0,
      has_replacement: false,
      buyer: null,
      merchant_account_id: 'default',
    });
    expect(body.fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body).not.toContain(VISA);
    expect((await t.request({ method: 'GET', url: `/payment-methods/${body.id}` })).json()).toEqual(body);
  });

  it('keeps the number only as ciphertext bound to its row', async () => {
    const { id } = (await store(card())).json();
    const row = await t.deps.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(VISA);
    expect(row.number_ciphertext).toMatch(/^v1\./);
    const plain = await t.deps.vault.decrypt(
      t.deps.db,
      'default',
      { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
      { table: 'payment_methods', column: 'number', rowId: id },
    );
    expect(plain).toBe(VISA);
  });

  it('gives the same card stored twice the same fingerprint', async () => {
    const one = (await store(card())).json();
    const two = (await store(card({ expiration_date: '01/38' }))).json();
    const other = (await store(card({ number: AMEX }))).json();
    expect(two.fingerprint).toBe(one.fingerprint);
    expect(other.fingerprint).not.toBe(one.fingerprint);
    expect(other).toMatchObject({ scheme: 'amex', label: '0005', details: { bin: '378282' } });
  });

  it('holds a security code encrypted for one use, never in clear', async () => {
    const { id } = (await store(card({ security_code: '737' }))).json();
    const rows = await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', id).execute();
    expect(rows).toHaveLength(1);
    // Three digits occur by chance in base64url text (about one sealed "737" in 10,000 contains
    // "737"), so no substring check: the code is in no other column, nor in the card's row, as a
    // whole value; the ciphertext column holds the vault's sealed form, which opens only with the
    // data key and this row's binding.
    const { ciphertext, ...columns } = rows[0]!;
    const method = await t.deps.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(containsSecret(JSON.stringify(columns), '737')).toBe(false);
    expect(containsSecret(JSON.stringify(method), '737')).toBe(false);
    expect(ciphertext).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    const elsewhere = { table: 'vault_security_codes', column: 'ciphertext', rowId: 'payment-method:another-card' };
    await expect(
      t.deps.vault.decrypt(t.deps.db, 'default', { ciphertext, keyId: columns.key_id }, elsewhere),
    ).rejects.toBeInstanceOf(DecryptionError);
    expect(columns.expires_at.getTime() - Date.now()).toBeLessThanOrEqual(3600_000);
    expect(await t.deps.vault.takeSecurityCode(t.deps.db, 'default', { type: 'payment-method', id })).toBe('737');
    expect(await t.deps.vault.takeSecurityCode(t.deps.db, 'default', { type: 'payment-method', id })).toBeNull();
  });

  it('lists newest first with filters', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const first = (await store(card({ external_identifier: 'x-1' }), merchant)).json();
    const second = (await store(card({ number: AMEX }), merchant)).json();
    const all = (await t.request({ method: 'GET', url: '/payment-methods', merchantAccountId: merchant })).json();
    expect(all.items.map((m: { id: string }) => m.id)).toEqual([second.id, first.id]);
    const filtered = (
      await t.request({ method: 'GET', url: '/payment-methods?external_identifier=x-1', merchantAccountId: merchant })
    ).json();
    expect(filtered.items.map((m: { id: string }) => m.id)).toEqual([first.id]);
    const page = (
      await t.request({ method: 'GET', url: '/payment-methods?limit=1&status=succeeded', merchantAccountId: merchant })
    ).json();
    expect(page.items).toHaveLength(1);
    expect(page.next_cursor).toBeTruthy();
  });

  it('links a card to a buyer by id or external identifier, and detaches it when the buyer is deleted', async () => {
    const buyer = (
      await t.request({
        method: 'POST',
        url: '/buyers',
        payload: { display_name: 'Card holder', external_identifier: `holder-${Date.now()}` },
      })
    ).json();
    const byId = (await store(card({ buyer_id: buyer.id }))).json();
    expect(byId.buyer).toMatchObject({ id: buyer.id, type: 'buyer' });
    const byRef = (await store(card({ buyer_external_identifier: buyer.external_identifier }))).json();
    expect(byRef.buyer.id).toBe(buyer.id);
    const listed = (await t.request({ method: 'GET', url: `/payment-methods?buyer_id=${buyer.id}` })).json();
    expect(listed.items.map((m: { id: string }) => m.id)).toEqual([byRef.id, byId.id]);
    expect((await store(card({ buyer_id: '018f0000-0000-7000-8000-000000000000' }))).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/buyers/${buyer.id}` })).statusCode).toBe(204);
    const after = (await t.request({ method: 'GET', url: `/payment-methods/${byId.id}` })).json();
    expect(after.buyer).toBeNull();
  });

  it('deletes a card with its ciphertext and held security code', async () => {
    const { id } = (await store(card({ security_code: '1234', number: AMEX }))).json();
    const res = await t.request({ method: 'DELETE', url: `/payment-methods/${id}` });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request({ method: 'GET', url: `/payment-methods/${id}` })).statusCode).toBe(404);
    expect(await t.deps.db.selectFrom('vault_security_codes').selectAll().where('owner_id', '=', id).execute()).toEqual(
      [],
    );
  });
});

describe('happy (checkout session form)', () => {
  const session = async () =>
    (await t.request({ method: 'POST', url: '/checkout/sessions', payload: {} })).json().id as string;
  const fields = (id: string, payment_method: object) =>
    t.app.inject({ method: 'POST', url: `/checkout/sessions/${id}/fields`, payload: { payment_method } });

  it("stores the card a checkout session holds, under a new row's binding", async () => {
    const id = await session();
    expect(
      (await fields(id, { method: 'card', number: AMEX, expiration_date: '11/37', security_code: '1234' })).statusCode,
    ).toBe(204);
    const res = await store({ method: 'checkout-session', id, external_identifier: 'from-session' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      method: 'card',
      scheme: 'amex',
      label: '0005',
      expiration_date: '11/37',
      external_identifier: 'from-session',
      details: { bin: '378282' },
    });
    expect(res.json().fingerprint).toBe((await store(card({ number: AMEX }))).json().fingerprint);
    const row = await t.deps.db
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    const plain = await t.deps.vault.decrypt(
      t.deps.db,
      'default',
      { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
      { table: 'payment_methods', column: 'number', rowId: row.id },
    );
    expect(plain).toBe(AMEX);
    expect(res.body).not.toContain(AMEX);
  });

  it('answers 400 for a session without card data and 404 for an unknown one', async () => {
    const res = await store({ method: 'checkout-session', id: await session() });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      message: 'Request failed validation',
      details: [{ location: 'body', pointer: '/id', type: 'checkout_session_no_card' }],
    });
    expect((await store({ method: 'checkout-session', id: '018f0000-0000-7000-8000-000000000000' })).statusCode).toBe(
      404,
    );
    const missing = await store({ method: 'checkout-session' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.id']);
  });

  it('defaults to the card form when method is left out', async () => {
    const res = await store({ number: VISA, expiration_date: '12/39' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().method).toBe('card');
  });
});

describe('errors', () => {
  it('refuses a list that names the buyer by both keys, pointing at the query', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/payment-methods?buyer_id=018f0000-0000-7000-8000-000000000000&buyer_external_identifier=x',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ location: 'query', pointer: '/buyer_external_identifier' });
  });

  it('refuses a number that fails Luhn, the scheme length, or is not digits, without echoing it', async () => {
    const luhn = await store(card({ number: '4111111111111112' }));
    expect(luhn.statusCode).toBe(400);
    expect(luhn.json()).toMatchObject({
      code: 'bad_request',
      details: [{ location: 'body', pointer: '/number', type: 'card_number_luhn' }],
    });
    expect(luhn.body).not.toContain('4111111111111112');
    const length = await store(card({ number: '37828224631000' }));
    expect(length.statusCode).toBe(400);
    expect(length.json().details[0]).toMatchObject({ pointer: '/number', type: 'card_number_length' });
    const amexLength = await store(card({ number: '3782822463100050' }));
    expect(amexLength.statusCode).toBe(400);
    expect(amexLength.json().details[0].message).toMatch(/15 digits/);
    const letters = await store(card({ number: '4111-1111-1111-1111' }));
    expect(letters.statusCode).toBe(422);
    expect(letters.json().detail[0].loc).toEqual(['body', 'number']);
  });

  it('refuses an expired card and a malformed expiry', async () => {
    const expired = await store(card({ expiration_date: '01/20' }));
    expect(expired.statusCode).toBe(400);
    expect(expired.json().details[0]).toMatchObject({ pointer: '/expiration_date', type: 'card_expired' });
    expect((await store(card({ expiration_date: '13/30' }))).statusCode).toBe(422);
  });

  it('refuses a security code that is not 3 or 4 digits', async () => {
    const res = await store(card({ security_code: '12' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'security_code']);
  });

  it('answers 404 for an unknown payment method', async () => {
    expect(
      (await t.request({ method: 'GET', url: '/payment-methods/018f0000-0000-7000-8000-000000000000' })).statusCode,
    ).toBe(404);
  });
});

describe('security', () => {
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/payment-methods', payload: card() }),
      scope: 'payment-methods.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/payment-methods' }),
      scope: 'payment-methods.read',
    }));

  it("does not show one merchant account's cards to another", async () => {
    const mine = await createMerchantAccount(t.deps);
    const { id } = (await store(card(), mine)).json();
    expect((await t.request({ method: 'GET', url: `/payment-methods/${id}` })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/payment-methods/${id}` })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: `/payment-methods/${id}`, merchantAccountId: mine })).statusCode,
    ).toBe(200);
  });

  it('never lets a test card number reach a response, a log line, an audit entry or a job', async () => {
    const numbers = [VISA, AMEX, '5555555555554444'];
    const bodies: string[] = [];
    for (const number of numbers) {
      const res = await store(card({ number, security_code: '9876' }));
      bodies.push(res.body);
      bodies.push((await t.request({ method: 'GET', url: `/payment-methods/${res.json().id}` })).body);
    }
    bodies.push((await t.request({ method: 'GET', url: '/payment-methods?limit=100' })).body);
    bodies.push((await store(card({ number: '4111111111111112' }))).body);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const jobs = await sql<{ text: string }>`SELECT row_to_json(j)::text AS text FROM jobs j`.execute(t.deps.db);
    const everything = [...bodies, ...t.logs, ...audit.rows.map((r) => r.text), ...jobs.rows.map((r) => r.text)].join(
      '\n',
    );
    for (const number of [...numbers, '4111111111111112']) expect(everything).not.toContain(number);
    // As a value of its own: four digits also turn up by chance inside ids and ciphertexts.
    expect(everything).not.toContain('"9876"');
  });
});
