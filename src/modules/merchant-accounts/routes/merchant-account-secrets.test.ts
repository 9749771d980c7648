import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { expectNoSecrets } from '../../../../test/helpers/leak-scan.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { sealPlaintextSecrets } from '../merchant-account-secrets.ts';

/**
 * The secrets a merchant account holds (`loon_secret_key` and the account updater's two keys) are
 * sealed by the vault, bound to their row and column: no table holds them in clear, responses show
 * them masked, and rows written in clear before migration 0039 are sealed by a job.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const newId = () => `sealed-${uuidv7().slice(-12)}`;
const SECRETS = {
  loon_secret_key: 'loon-secret-0d9f3a7c1b',
  account_updater_request_encryption_key: 'au-request-key-5e2b8c41aa',
  account_updater_response_decryption_key: 'au-response-key-77c0e9d2f3',
};
const FIELDS = Object.keys(SECRETS) as Array<keyof typeof SECRETS>;

/** What a response shows of a secret longer than 20 characters (maskSecret). */
const mask = (secret: string) => `${'*'.repeat(16)}${secret.slice(-4)}`;
const rowOf = async (id: string) =>
  (await sql<Record<string, any>>`SELECT * FROM merchant_accounts WHERE id = ${id}`.execute(t.deps.db)).rows[0]!;

/** Opens one sealed field of a row the way the server does: the account's data key, bound to the row and column. */
async function open(id: string, field: string): Promise<string> {
  const sealed = (await rowOf(id)).sealed_secrets[field];
  return t.deps.vault.decrypt(t.deps.db, id, sealed, { table: 'merchant_accounts', column: field, rowId: id });
}

describe('happy', () => {
  it('seals the secrets of a created and an updated account: no row holds them in clear, responses mask them, the vault opens them', async () => {
    const id = newId();
    const created = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id, display_name: 'Sealed', loon_client_key: 'client', loon_accepted_schemes: ['visa'], ...SECRETS },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      loon_secret_key: mask(SECRETS.loon_secret_key),
      account_updater_request_encryption_key: mask(SECRETS.account_updater_request_encryption_key),
      account_updater_response_decryption_key: mask(SECRETS.account_updater_response_decryption_key),
    });
    const updated = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { account_updater_request_encryption_key: 'au-request-key-rotated-9911' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      account_updater_request_encryption_key: mask('au-request-key-rotated-9911'),
      account_updater_response_decryption_key: mask(SECRETS.account_updater_response_decryption_key),
      loon_secret_key: mask(SECRETS.loon_secret_key),
    });
    const got = await t.request({ method: 'GET', url: `/merchant-accounts/${id}` });
    expect(got.json()).toEqual(updated.json());
    await expectNoSecrets(
      t,
      [created.body, updated.body, got.body],
      [...Object.values(SECRETS), 'au-request-key-rotated-9911'],
    );
    expect(await open(id, 'loon_secret_key')).toBe(SECRETS.loon_secret_key);
    expect(await open(id, 'account_updater_request_encryption_key')).toBe('au-request-key-rotated-9911');
    expect(await open(id, 'account_updater_response_decryption_key')).toBe(
      SECRETS.account_updater_response_decryption_key,
    );
  });

  it('clears a secret sent as null, and keeps the ones not sent', async () => {
    const id = newId();
    await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: {
        id,
        display_name: 'Clear',
        account_updater_request_encryption_key: SECRETS.account_updater_request_encryption_key,
        account_updater_response_decryption_key: SECRETS.account_updater_response_decryption_key,
      },
    });
    const res = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { account_updater_request_encryption_key: null, display_name: 'Cleared' },
    });
    expect(res.json()).toMatchObject({
      account_updater_request_encryption_key: null,
      account_updater_response_decryption_key: mask(SECRETS.account_updater_response_decryption_key),
      display_name: 'Cleared',
    });
    const row = await rowOf(id);
    expect(Object.keys(row.sealed_secrets)).toEqual(['account_updater_response_decryption_key']);
  });
});

describe('security', () => {
  it('a sealed secret copied to another account or column does not open', async () => {
    const a = newId();
    const b = newId();
    await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: {
        id: a,
        display_name: 'A',
        account_updater_request_encryption_key: SECRETS.account_updater_request_encryption_key,
      },
    });
    await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id: b, display_name: 'B' } });
    const sealed = (await rowOf(a)).sealed_secrets.account_updater_request_encryption_key;
    await expect(
      t.deps.vault.decrypt(t.deps.db, a, sealed, {
        table: 'merchant_accounts',
        column: 'account_updater_response_decryption_key',
        rowId: a,
      }),
    ).rejects.toThrow();
    await expect(
      t.deps.vault.decrypt(t.deps.db, b, sealed, {
        table: 'merchant_accounts',
        column: 'account_updater_request_encryption_key',
        rowId: b,
      }),
    ).rejects.toThrow();
  });

  it('two sweeps at once (two processes) seal each row kept in clear once, and every sealed value opens', async () => {
    const ids = [newId(), newId(), newId(), newId(), newId()];
    for (const id of ids)
      await sql`INSERT INTO merchant_accounts (id, display_name, loon_secret_key) VALUES (${id}, 'Legacy', ${`legacy-loon-${id}`})`.execute(
        t.deps.db,
      );
    const [a, b] = await Promise.all([sealPlaintextSecrets(t.deps, 2), sealPlaintextSecrets(t.deps, 2)]);
    expect(a + b).toBe(ids.length);
    for (const id of ids) {
      expect((await rowOf(id)).loon_secret_key).toBeNull();
      expect(await open(id, 'loon_secret_key')).toBe(`legacy-loon-${id}`);
    }
    expect(await sealPlaintextSecrets(t.deps)).toBe(0);
  });

  it('a row written in clear before migration 0039 is sealed by seal-merchant-account-secrets, and still answers and opens the same', async () => {
    const id = newId();
    await sql`INSERT INTO merchant_accounts (id, display_name, loon_client_key, loon_secret_key, loon_accepted_schemes, account_updater_request_encryption_key, account_updater_response_decryption_key)
      VALUES (${id}, 'Legacy', 'client', ${SECRETS.loon_secret_key}, ${sql`ARRAY['visa']::text[]`}, ${SECRETS.account_updater_request_encryption_key}, ${SECRETS.account_updater_response_decryption_key})`.execute(
      t.deps.db,
    );
    const before = (await t.request({ method: 'GET', url: `/merchant-accounts/${id}` })).json();
    expect(before.loon_secret_key).toBe(mask(SECRETS.loon_secret_key));
    await t.deps.queue.enqueue(t.deps.db, 'seal-merchant-account-secrets', {});
    await t.deps.queue.drain(t.deps);
    const row = await rowOf(id);
    for (const field of FIELDS) {
      expect(row[field], field).toBeNull();
      expect(await open(id, field)).toBe(SECRETS[field]);
    }
    const after = await t.request({ method: 'GET', url: `/merchant-accounts/${id}` });
    expect(after.json()).toEqual(before);
    // Running it again changes nothing (idempotent), and the account still takes updates.
    await t.deps.queue.enqueue(t.deps.db, 'seal-merchant-account-secrets', {}, { jobKey: `again:${id}` });
    await t.deps.queue.drain(t.deps);
    expect((await rowOf(id)).sealed_secrets).toEqual(row.sealed_secrets);
    const renamed = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { display_name: 'Legacy, sealed' },
    });
    expect(renamed.json()).toMatchObject({ ...before, display_name: 'Legacy, sealed', updated_at: expect.any(String) });
    await expectNoSecrets(t, [after.body, renamed.body], Object.values(SECRETS));
  });
});
