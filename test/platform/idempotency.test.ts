import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRequestTransaction } from '../../src/context.ts';
import { defineRoute } from '../../src/http/define-route.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { insertMerchantAccount } from '../../src/modules/merchant-accounts/merchant-accounts.repo.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount, removeMerchantAccounts } from '../helpers/factories.ts';
import { createTestKeyPair } from '../helpers/tokens.ts';

const MISMATCH_MESSAGE =
  'This idempotency-key was already used with other parameters (method, path or body); send a new key for a different request';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  return { promise: new Promise<void>((r) => (resolve = r)), resolve };
}

/** Executions per id of the test routes (a replay must not add one). */
const executions = new Map<string, number>();
const slow = { started: deferred(), release: deferred() };

const TestBody = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
const TestResult = Type.Object({ id: Type.String(), execution: Type.Integer() }, { additionalProperties: false });
const common = {
  scope: 'merchant-accounts.write',
  tags: ['test'],
  status: 201,
  merchantScoped: false,
  body: TestBody,
  response: TestResult,
} as const;

/** `/test/flaky` fails with a plain Error on the first execution per id; `/test/slow` waits on `slow.release`. */
async function testRoutes(app: FastifyInstance): Promise<void> {
  app.route(
    defineRoute({
      ...common,
      operationId: 'testFlaky',
      method: 'POST',
      url: '/test/flaky',
      summary: 'Fails on its first execution',
      handler: async ({ ctx, body }) => {
        const execution = (executions.get(body.id) ?? 0) + 1;
        executions.set(body.id, execution);
        return withRequestTransaction(ctx, async (tx) => {
          await insertMerchantAccount(tx, { id: body.id, display_name: 'flaky' });
          if (execution === 1) throw new Error('the first execution fails after its write');
          return { id: body.id, execution };
        });
      },
    }),
  );
  app.route(
    defineRoute({
      ...common,
      operationId: 'testSlow',
      method: 'POST',
      url: '/test/slow',
      summary: 'Waits until released',
      handler: async ({ ctx, body }) => {
        executions.set(body.id, (executions.get(body.id) ?? 0) + 1);
        slow.started.resolve();
        await slow.release.promise;
        return withRequestTransaction(ctx, async (tx) => {
          await insertMerchantAccount(tx, { id: body.id, display_name: 'slow' });
          return { id: body.id, execution: executions.get(body.id)! };
        });
      },
    }),
  );
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, { plugins: [testRoutes] });
});
afterAll(async () => t.close());

const newKey = () => `key-${uuidv7()}`;
const newId = () => `idem-${uuidv7().slice(-12)}`;

type Extra = { token?: string | null; scopes?: string[]; headers?: Record<string, string>; url?: string };

/** POST with an idempotency key; a string body is sent as is (to vary whitespace and key order). */
function post(body: object | string, key: string, extra: Extra = {}) {
  const { headers, url, ...rest } = extra;
  return t.request({
    method: 'POST',
    url: url ?? '/merchant-accounts',
    payload: body,
    headers: {
      'idempotency-key': key,
      ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...rest,
  });
}

async function countAccounts(id: string): Promise<number> {
  const row = await t.deps.db
    .selectFrom('merchant_accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The transaction that last wrote a row: equal for rows written in one transaction. */
async function writtenBy(
  table: 'merchant_accounts' | 'idempotency_keys',
  column: 'id' | 'key',
  value: string,
): Promise<string> {
  return (
    await sql<{
      x: string;
    }>`SELECT xmin::text AS x FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(t.deps.db)
  ).rows[0]!.x;
}

const keyRows = (key: string) => t.deps.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).execute();

describe('happy', () => {
  it('replays the first response byte for byte, marked as replayed, without doing the work again', async () => {
    const key = newKey();
    const id = newId();
    const first = await post({ id, display_name: 'Replayed' }, key);
    expect([first.statusCode, first.headers['idempotent-replayed']]).toEqual([201, undefined]);

    for (let i = 0; i < 2; i++) {
      const again = await post({ id, display_name: 'Replayed' }, key);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['content-type']).toBe(first.headers['content-type']);
      expect(again.body).toBe(first.body);
    }
    expect(await countAccounts(id)).toBe(1);
    const [row, ...others] = await keyRows(key);
    expect(others).toEqual([]);
    expect(row).toMatchObject({ state: 'completed', response_status: 201, method: 'POST', path: '/merchant-accounts' });
    // Sealed by the vault (see idempotency-encryption.test.ts), never in clear.
    expect(row!.response_key_id).toEqual(expect.any(String));
    expect(row!.response_body).not.toContain(id);
    // The stored response committed in the transaction that did the work.
    expect(await writtenBy('idempotency_keys', 'key', key)).toBe(await writtenBy('merchant_accounts', 'id', id));
    // Kept for the replay window (24 hours by default).
    expect(row!.expires_at.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
  });

  it('treats the same body with other whitespace and key order as the same request', async () => {
    const key = newKey();
    const id = newId();
    const first = await post(JSON.stringify({ id, display_name: 'Same', over_capture_percentage: 5 }), key);
    expect(first.statusCode).toBe(201);
    const again = await post(`{\n  "over_capture_percentage" : 5,\n\t"display_name":"Same",  "id": "${id}"\n}\n`, key);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
    expect(await countAccounts(id)).toBe(1);
  });

  it('lets exactly one of 25 parallel requests with one key do the work', async () => {
    const key = newKey();
    const id = newId();
    const responses = await Promise.all(Array.from({ length: 25 }, () => post({ id, display_name: 'Parallel' }, key)));
    expect(await countAccounts(id)).toBe(1);
    for (const res of responses) expect([201, 425]).toContain(res.statusCode);
    const created = responses.filter((res) => res.statusCode === 201);
    const originals = created.filter((res) => res.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const res of created) expect(res.body).toBe(originals[0]!.body);
    for (const res of responses.filter((r) => r.statusCode === 425))
      expect(res.json()).toMatchObject({ code: 'too_early', status: 425 });
    const replay = await post({ id, display_name: 'Parallel' }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(originals[0]!.body);
  });

  it('purges expired keys with the purge-idempotency-keys job; the key can then be used again', async () => {
    const [expired, live] = [newKey(), newKey()];
    const id = newId();
    expect((await post({ id, display_name: 'Expiring' }, expired)).statusCode).toBe(201);
    expect((await post({ id: newId(), display_name: 'Live' }, live)).statusCode).toBe(201);
    await sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE key = ${expired}`.execute(
      t.deps.db,
    );

    expect(await t.deps.queue.enqueue(t.deps.db, 'purge-idempotency-keys', {})).toBe(true);
    expect(await t.deps.queue.drain(t.deps)).toBeGreaterThanOrEqual(1);
    expect(await keyRows(expired)).toEqual([]);
    expect(await keyRows(live)).toHaveLength(1);

    // A different request with the purged key is new work, not a mismatch.
    const reused = await post({ id: newId(), display_name: 'Reused' }, expired);
    expect([reused.statusCode, reused.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });

  it('replays any valid creation byte for byte (property)', async () => {
    let n = 0;
    const body = fc.record(
      {
        id: fc
          .stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/)
          .map((prefix) => `${prefix}-${uuidv7().slice(-12)}-${n++}`),
        // NUL cannot be stored in a PostgreSQL text column (see the report); every other code point can.
        display_name: fc.string({ unit: 'binary', minLength: 1, maxLength: 100 }).filter((s) => !s.includes('\u0000')),
        over_capture_amount: fc.option(fc.integer({ min: 0, max: 99_999_999 }), { nil: undefined }),
      },
      { requiredKeys: ['id', 'display_name'] },
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.string({ minLength: 1, maxLength: 255, unit: 'grapheme-ascii' }),
        async (payload, suffix) => {
          const key = `${uuidv7()}${suffix}`.slice(0, 255);
          const first = await post(payload, key);
          expect(first.statusCode).toBe(201);
          const again = await post(payload, key);
          expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([
            201,
            'true',
            first.body,
          ]);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('errors', () => {
  it('answers 400 for the same key with another body, and still replays the original', async () => {
    const key = newKey();
    const id = newId();
    const first = await post({ id, display_name: 'Original' }, key);
    expect(first.statusCode).toBe(201);
    const other = await post({ id, display_name: 'Changed' }, key);
    expect(other.statusCode).toBe(400);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.json()).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: MISMATCH_MESSAGE,
      details: [
        {
          location: 'header',
          pointer: '/idempotency-key',
          message: 'Key reused with a different request',
          type: 'idempotency_mismatch',
        },
      ],
    });
    // Another path with the same key is another request too.
    expect((await post({ id }, key, { url: '/test/flaky' })).json()).toMatchObject({
      code: 'bad_request',
      message: MISMATCH_MESSAGE,
    });
    const original = await post({ id, display_name: 'Original' }, key);
    expect(original.headers['idempotent-replayed']).toBe('true');
    expect(original.body).toBe(first.body);
  });

  it('stores and replays a 409', async () => {
    const id = await createMerchantAccount(t.deps);
    const key = newKey();
    const first = await post({ id, display_name: 'Taken' }, key);
    expect(first.statusCode).toBe(409);
    expect(first.json()).toMatchObject({ code: 'duplicate_record', resource_id: id });
    // Were it run again, the request would now succeed: the replay proves it is not.
    await removeMerchantAccounts(t.deps, [id]);
    const again = await post({ id, display_name: 'Taken' }, key);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([409, 'true', first.body]);
    expect(await countAccounts(id)).toBe(0);
  });

  it('answers 422 for a key longer than 255 characters and accepts 255', async () => {
    const res = await post({ id: newId(), display_name: 'Long key' }, 'k'.repeat(256));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'string_too_long' }),
      ]),
    );
    expect((await post({ id: newId(), display_name: 'Longest key' }, `${uuidv7()}${'k'.repeat(219)}`)).statusCode).toBe(
      201,
    );
  });

  it('does not store a 500: a retry with the key runs again, and its success is replayed', async () => {
    const key = newKey();
    const id = newId();
    const failed = await post({ id }, key, { url: '/test/flaky' });
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toMatchObject({ code: 'server_error', status: 500 });
    expect(await countAccounts(id)).toBe(0); // the write rolled back with the failure
    expect(await keyRows(key)).toEqual([]);

    const retried = await post({ id }, key, { url: '/test/flaky' });
    expect([retried.statusCode, retried.headers['idempotent-replayed'], retried.json()]).toEqual([
      201,
      undefined,
      { id, execution: 2 },
    ]);

    const replayed = await post({ id }, key, { url: '/test/flaky' });
    expect([replayed.statusCode, replayed.headers['idempotent-replayed'], replayed.body]).toEqual([
      201,
      'true',
      retried.body,
    ]);
    expect(executions.get(id)).toBe(2);
    expect(await countAccounts(id)).toBe(1);
  });

  it('answers 425 with retry-after to a duplicate that arrives while the first is running', async () => {
    const key = newKey();
    const id = newId();
    const pending = post({ id }, key, { url: '/test/slow' });
    await slow.started.promise;
    const early = await post({ id }, key, { url: '/test/slow' });
    expect(early.statusCode).toBe(425);
    expect(early.headers['retry-after']).toBe('1');
    expect(early.json()).toMatchObject({ type: 'error', code: 'too_early', status: 425 });
    slow.release.resolve();
    const first = await pending;
    expect(first.statusCode).toBe(201);
    const replayed = await post({ id }, key, { url: '/test/slow' });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(first.body);
    expect(executions.get(id)).toBe(1);
  });
});

describe('security', () => {
  it('keeps keys of another credential owner apart', async () => {
    const [other, third] = [await createTestKeyPair(t.deps), await createTestKeyPair(t.deps)];
    const key = newKey();
    const id = newId();
    const mine = await post({ id, display_name: 'Mine' }, key);
    expect(mine.statusCode).toBe(201);
    // Same key and body from another owner: run (and refused as a duplicate), not replayed.
    const same = await post({ id, display_name: 'Mine' }, key, { token: await other.token() });
    expect(same.statusCode).toBe(409);
    expect(same.headers['idempotent-replayed']).toBeUndefined();
    // Same key with another body from another owner: new work, not a mismatch.
    const reused = await post({ id: newId(), display_name: 'Theirs' }, key, { token: await third.token() });
    expect(reused.statusCode).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect((await post({ id, display_name: 'Mine' }, key)).body).toBe(mine.body);
  });

  it('keeps keys of another merchant account apart', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const key = newKey();
    const id = newId();
    const first = await post({ id, display_name: 'Default account' }, key);
    expect(first.statusCode).toBe(201);
    const other = await post({ id: newId(), display_name: 'Other account' }, key, {
      headers: { 'x-svc-merchant-account-id': merchant },
    });
    expect(other.statusCode).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect((await keyRows(key)).map((row) => row.merchant_account_id).sort()).toEqual(['default', merchant].sort());
  });

  it('authenticates and checks scopes before replaying', async () => {
    const key = newKey();
    const body = { id: newId(), display_name: 'Guarded' };
    expect((await post(body, key)).statusCode).toBe(201);
    expect((await post(body, key, { token: null })).statusCode).toBe(401);
    const readOnly = await post(body, key, { scopes: ['merchant-accounts.read'] });
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.headers['idempotent-replayed']).toBeUndefined();
  });
});
