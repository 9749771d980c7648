import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const newKey = () => `key-${uuidv7()}`;
const CREDENTIALS_MESSAGE =
  'This idempotency-key was already used by a token with other scopes or embed pins; retry with a token like the first, or send a new key';

type Extra = { scopes?: string[]; merchantAccountId?: string };
const createBuyer = (email: string, key: string, extra: Extra = {}) =>
  t.request({
    method: 'POST',
    url: '/buyers',
    payload: { display_name: 'Ada', billing_details: { first_name: 'Ada', email_address: email } },
    headers: { 'idempotency-key': key },
    ...extra,
  });

/** Every column of every idempotency row, as the database holds it. */
async function rawTable(): Promise<string> {
  const rows = await sql<{ text: string }>`SELECT row_to_json(k)::text AS text FROM idempotency_keys k`.execute(
    t.deps.db,
  );
  return rows.rows.map((r) => r.text).join('\n');
}

describe('encryption at rest', () => {
  it('stores no personal data in clear, and replays the response byte for byte', async () => {
    const email = `ada-${uuidv7().slice(-12)}@example.com`;
    const key = newKey();
    const first = await createBuyer(email, key);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.body).toContain(email);

    const raw = await rawTable();
    expect(raw).toContain(key);
    expect(raw).not.toContain(email);
    expect(raw).not.toContain(first.json().id);
    const row = await t.deps.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      state: 'completed',
      response_status: 201,
      response_key_id: expect.any(String),
      credential_hash: expect.any(String),
    });

    const again = await createBuyer(email, key);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
  });

  it('refuses a response in clear at the table level', async () => {
    const key = newKey();
    expect((await createBuyer('x@example.com', key)).statusCode).toBe(201);
    const clear = sql`UPDATE idempotency_keys SET response_key_id = NULL WHERE key = ${key}`.execute(t.deps.db);
    await expect(clear).rejects.toThrow(/idempotency_keys_sealed_response/);
  });

  it('does not open a sealed response moved to another row', async () => {
    const [a, b] = [newKey(), newKey()];
    expect((await createBuyer('a@example.com', a)).statusCode).toBe(201);
    expect((await createBuyer('b@example.com', b)).statusCode).toBe(201);
    await sql`UPDATE idempotency_keys SET (response_body, response_key_id) = (SELECT response_body, response_key_id FROM idempotency_keys WHERE key = ${a}) WHERE key = ${b}`.execute(
      t.deps.db,
    );
    const replay = await createBuyer('b@example.com', b);
    expect(replay.statusCode).toBe(500);
    expect(replay.body).not.toContain('a@example.com');
  });

  it('answers 403 to a key on an instance-wide operation naming a merchant account that does not exist', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id: `m-${uuidv7().slice(-12)}`, display_name: 'M' },
      headers: { 'idempotency-key': newKey(), 'x-svc-merchant-account-id': 'no-such-account' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', message: expect.stringContaining('no-such-account') });
  });
});

describe('credential binding', () => {
  it('does not replay to a token of the same key pair without the billing details scope', async () => {
    const email = `grace-${uuidv7().slice(-12)}@example.com`;
    const key = newKey();
    expect((await createBuyer(email, key)).statusCode).toBe(201);
    const narrow = await createBuyer(email, key, { scopes: ['buyers.write'] });
    expect(narrow.statusCode).toBe(400);
    expect(narrow.headers['idempotent-replayed']).toBeUndefined();
    expect(narrow.body).not.toContain(email);
    expect(narrow.json()).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: CREDENTIALS_MESSAGE,
      details: [
        {
          location: 'header',
          pointer: '/idempotency-key',
          message: 'Key reused with different credentials or scopes',
          type: 'idempotency_credentials_mismatch',
        },
      ],
    });
  });

  it('requires the same scopes, not more: a wider token is refused too', async () => {
    const key = newKey();
    const scopes = ['buyers.write', 'buyers.read'];
    const first = await createBuyer('s@example.com', key, { scopes });
    expect(first.statusCode).toBe(201);
    expect((await createBuyer('s@example.com', key)).json()).toMatchObject({
      code: 'bad_request',
      message: CREDENTIALS_MESSAGE,
    });
    // Another token with the same scopes in another order and with a duplicate is the same credential.
    const same = await createBuyer('s@example.com', key, { scopes: ['buyers.read', 'buyers.write', 'buyers.read'] });
    expect([same.statusCode, same.headers['idempotent-replayed'], same.body]).toEqual([201, 'true', first.body]);
  });

  it('checks the request before the credential, and keeps merchant accounts apart', async () => {
    const key = newKey();
    const merchant = await createMerchantAccount(t.deps);
    expect((await createBuyer('m@example.com', key)).statusCode).toBe(201);
    expect((await createBuyer('other@example.com', key, { scopes: ['buyers.write'] })).json().details[0].type).toBe(
      'idempotency_mismatch',
    );
    const elsewhere = await createBuyer('m@example.com', key, { merchantAccountId: merchant });
    expect([elsewhere.statusCode, elsewhere.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });
});
