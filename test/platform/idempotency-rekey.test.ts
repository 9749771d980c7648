import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonical, responseBinding } from '../../src/http/idempotency-fingerprint.ts';
import { rekeyIdempotencyKeys } from '../../src/jobs/rekey-idempotency-keys.job.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { bruteForceCards } from '../helpers/card-brute-force.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { dumpAllTables } from '../reliability/support/leak-scan.ts';

/**
 * Migration 0038 and the rekey-idempotency-keys job: a key stored by the previous version (an
 * unkeyed SHA-256 of the request, its response sealed under it) is rewritten as a keyed MAC, and a
 * retry of it still replays, before and after the rewrite.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const CARD = { label: 'legacy key', number: '4111111111111111', code: '737' };
const body = (number = CARD.number) => ({ method: 'card', number, expiration_date: '12/40', security_code: CARD.code });
const store = (merchantAccountId: string, key: string, payload: object = body()) =>
  t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId,
    payload,
    headers: { 'idempotency-key': key },
  });

const rowOf = (merchantAccountId: string, key: string) =>
  t.deps.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();

/** Turns a key stored now into what the previous version stored: the SHA-256 of the request, the response sealed under it. */
async function makeLegacy(merchantAccountId: string, key: string): Promise<string> {
  const row = await rowOf(merchantAccountId, key);
  const claim = { owner: row.owner, key, credentialHash: row.credential_hash! };
  const sealed = { ciphertext: row.response_body!, keyId: row.response_key_id! };
  const response = await t.deps.vault.decrypt(
    t.deps.db,
    merchantAccountId,
    sealed,
    responseBinding({ ...claim, requestHash: row.request_hash }),
  );
  const legacy = createHash('sha256')
    .update(`POST /payment-methods\n${canonical(body())}`)
    .digest('hex');
  const resealed = await t.deps.vault.encrypt(
    t.deps.db,
    merchantAccountId,
    response,
    responseBinding({ ...claim, requestHash: legacy }),
  );
  await t.deps.db
    .updateTable('idempotency_keys')
    .set({ request_hash: legacy, response_body: resealed.ciphertext, response_key_id: resealed.keyId })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('key', '=', key)
    .execute();
  return legacy;
}

async function rekey(): Promise<void> {
  const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
  await rekeyIdempotencyKeys.handle({}, { deps: t.deps, jobId: uuidv7(), attempt: 1, log });
}

const tableRows = async () =>
  (await dumpAllTables(t.deps)).flatMap(({ table, rows }) =>
    rows.map((text, i) => ({ where: `table ${table} row ${i}`, text })),
  );
const request = { method: 'POST', url: '/payment-methods', payload: body() };

describe('keys stored before migration 0038', () => {
  it('are rewritten as keyed MACs by the rekey job, leave no unkeyed hash, and still replay', async () => {
    const merchantAccountId = await createMerchantAccount(t.deps);
    const key = `legacy-${uuidv7()}`;
    const first = await store(merchantAccountId, key);
    expect(first.statusCode, first.body).toBe(201);
    expect((await rowOf(merchantAccountId, key)).request_hash).toMatch(/^k1:[A-Za-z0-9_-]{43}$/);
    const legacy = await makeLegacy(merchantAccountId, key);
    // As the previous version left it: the brute force recovers the card from the stored hash.
    expect(bruteForceCards([CARD], [request], await tableRows())).toHaveLength(1);

    // A retry before the job ran (a rolling upgrade) replays.
    const early = await store(merchantAccountId, key);
    expect([early.statusCode, early.headers['idempotent-replayed'], early.body]).toEqual([201, 'true', first.body]);

    await rekey();
    const row = await rowOf(merchantAccountId, key);
    expect(row.request_hash).toMatch(/^k0:[A-Za-z0-9_-]{43}$/);
    expect(row.request_hash).not.toContain(legacy);
    const unkeyed = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM idempotency_keys WHERE request_hash NOT LIKE 'k%'`.execute(t.deps.db);
    expect(unkeyed.rows[0]!.n).toBe(0);
    expect(bruteForceCards([CARD], [request], await tableRows())).toEqual([]);

    const replay = await store(merchantAccountId, key);
    expect([replay.statusCode, replay.headers['idempotent-replayed'], replay.body]).toEqual([201, 'true', first.body]);
    // Another card under the same key is another request.
    const other = await store(merchantAccountId, key, body('5555555555554444'));
    expect([other.statusCode, other.json().details?.[0]?.type]).toEqual([400, 'idempotency_mismatch']);
    // The replay did not rewrite the hash back to an unkeyed form.
    expect((await rowOf(merchantAccountId, key)).request_hash).toBe(row.request_hash);
  });

  it('keeps a claim renewed while the job ran: a row is rewritten only if its hash is still the old one', async () => {
    const merchantAccountId = await createMerchantAccount(t.deps);
    const key = `legacy-${uuidv7()}`;
    expect((await store(merchantAccountId, key)).statusCode).toBe(201);
    await makeLegacy(merchantAccountId, key);
    const { setRekeyedHashes } = await import('../../src/modules/idempotency-keys/idempotency-keys.repo.ts');
    const row = await rowOf(merchantAccountId, key);
    const stale = {
      merchant_account_id: merchantAccountId,
      owner: row.owner,
      key,
      request_hash: 'f'.repeat(64),
      keyed: 'k0:stale',
    };
    expect(await setRekeyedHashes(t.deps.db, [stale])).toBe(0);
    expect(await setRekeyedHashes(t.deps.db, [{ ...stale, request_hash: row.request_hash, keyed: 'k0:fresh' }])).toBe(
      1,
    );
    expect((await rowOf(merchantAccountId, key)).request_hash).toBe('k0:fresh');
  });
});
