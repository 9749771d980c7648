import { generateKeyPairSync } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { createTestKeyPair } from '../../../../test/helpers/tokens.ts';
import { mintToken } from '../../../cli/token.ts';
import { thumbprintOf } from '../key-material.ts';

let t: TestApp;
beforeAll(async () => {
  // Debug level: the most the server ever logs, so the private key checks cover every line.
  t = await buildTestApp({ LOG_LEVEL: 'debug' });
});
afterAll(async () => t.close());

type Options = Omit<InjectOptions, 'method' | 'url'> & {
  token?: string | null;
  merchantAccountId?: string;
  scopes?: string[];
};

const create = (payload: Record<string, unknown>, options: Options = {}) =>
  t.request({ method: 'POST', url: '/api-key-pairs', payload, ...options });
const get = (id: string, options: Options = {}) =>
  t.request({ method: 'GET', url: `/api-key-pairs/${id}`, ...options });
const update = (id: string, payload: Record<string, unknown>, options: Options = {}) =>
  t.request({ method: 'PUT', url: `/api-key-pairs/${id}`, payload, ...options });
const remove = (id: string, options: Options = {}) =>
  t.request({ method: 'DELETE', url: `/api-key-pairs/${id}`, ...options });
const list = (query = '', options: Options = {}) =>
  t.request({ method: 'GET', url: `/api-key-pairs${query}`, ...options });

const tokenOf = (privateKeyPem: string) =>
  mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 300 });
/** Status of an authenticated call made with `token` (200 when the token is accepted). */
const callWith = async (token: string) => (await list('?limit=1', { token })).statusCode;

function localKey(curve = 'P-521') {
  const pair = generateKeyPairSync('ec', { namedCurve: curve });
  return {
    privateKeyPem: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyPem: pair.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    jwk: pair.publicKey.export({ format: 'jwk' }) as Record<string, string>,
  };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('happy', () => {
  it('generates a key pair whose private key, returned once, signs working tokens', async () => {
    const res = await create({ display_name: 'Checkout backend' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: 'api-key-pair',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      thumbprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      algorithm: 'ECDSA',
      display_name: 'Checkout backend',
      merchant_account_id: null,
      active: true,
      public_key: { kty: 'EC', crv: 'P-521', x: expect.any(String), y: expect.any(String) },
      private_key: expect.stringMatching(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      revoked_at: null,
      roles: [],
    });
    expect(body.thumbprint).toBe(await thumbprintOf(body.public_key));
    expect(body.kid).toBe(body.thumbprint);

    const token = await tokenOf(body.private_key);
    expect(await callWith(token)).toBe(200);

    const got = await get(body.id, { token });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ ...body, private_key: null });
    expect(got.body).not.toContain('PRIVATE KEY');
    expect((await get(body.kid)).json()).toEqual({ ...body, private_key: null });
    const listed = (await list('?limit=100')).json().items.find((item: { id: string }) => item.id === body.id);
    expect(listed).toEqual({ ...body, private_key: null });
  });

  it('registers a PEM public key without generating one', async () => {
    const key = localKey();
    const res = await create({ display_name: 'PEM', public_key: key.publicKeyPem });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.private_key).toBeNull();
    expect(body.public_key).toEqual({ kty: 'EC', crv: 'P-521', x: key.jwk.x, y: key.jwk.y });
    expect(body.kid).toBe(await thumbprintOf(key.jwk));
    expect(await callWith(await tokenOf(key.privateKeyPem))).toBe(200);
  });

  it('registers a JWK public key, ignoring members other than kty, crv, x and y', async () => {
    const key = localKey();
    const res = await create({
      display_name: 'JWK',
      public_key: { ...key.jwk, kid: 'mine', use: 'sig', alg: 'ES512' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      private_key: null,
      public_key: { kty: 'EC', crv: 'P-521', x: key.jwk.x, y: key.jwk.y },
      thumbprint: await thumbprintOf(key.jwk),
      kid: await thumbprintOf(key.jwk),
      algorithm: 'ECDSA',
    });
    expect(await callWith(await tokenOf(key.privateKeyPem))).toBe(200);
  });

  it('limits a pair to one merchant account', async () => {
    const account = await createMerchantAccount(t.deps);
    const res = await create({ display_name: 'Limited', merchant_account_id: account });
    expect(res.statusCode).toBe(201);
    expect(res.json().merchant_account_id).toBe(account);
    const token = await tokenOf(res.json().private_key);
    const whoami = await t.request({ method: 'GET', url: `/merchant-accounts/${account}`, token });
    expect(whoami.statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/merchant-accounts/default', token })).statusCode).toBe(404);
  });

  it('renames, revokes (tokens refused at once) and re-enables a pair', async () => {
    const created = (await create({ display_name: 'Old name' })).json();
    const token = await tokenOf(created.private_key);
    expect(await callWith(token)).toBe(200);

    const renamed = await update(created.id, { display_name: 'New name' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({
      display_name: 'New name',
      active: true,
      revoked_at: null,
      private_key: null,
    });
    expect(renamed.json().updated_at >= created.updated_at).toBe(true);

    const revoked = await update(created.kid, { active: false });
    expect(revoked.json()).toMatchObject({
      display_name: 'New name',
      active: false,
      revoked_at: expect.stringMatching(ISO),
    });
    expect(await callWith(token)).toBe(401);
    expect((await get(created.id)).json().active).toBe(false);

    const again = await update(created.id, { active: false });
    expect(again.json().revoked_at).toBe(revoked.json().revoked_at);

    const enabled = await update(created.id, { active: true });
    expect(enabled.json()).toMatchObject({ active: true, revoked_at: null });
    expect(await callWith(token)).toBe(200);
  });

  it('an empty update changes nothing', async () => {
    const created = (await create({ display_name: 'Same' })).json();
    const res = await update(created.id, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...created, private_key: null });
  });

  it('deletes a pair: 204, then 404 everywhere, not listed, its tokens refused', async () => {
    const created = (await create({ display_name: 'Doomed' })).json();
    const token = await tokenOf(created.private_key);
    expect(await callWith(token)).toBe(200);

    const res = await remove(created.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await callWith(token)).toBe(401);
    for (const again of [
      await get(created.id),
      await get(created.kid),
      await update(created.id, { active: true }),
      await remove(created.id),
    ]) {
      expect(again.statusCode).toBe(404);
      expect(again.json()).toMatchObject({ code: 'not_found', status: 404 });
    }
    const ids = (await list('?limit=100')).json().items.map((item: { id: string }) => item.id);
    expect(ids).not.toContain(created.id);
  });

  it('pages through the list newest first', async () => {
    const account = await createMerchantAccount(t.deps);
    const caller = await createTestKeyPair(t.deps, account);
    const token = await caller.token();
    const made: string[] = [caller.id];
    for (const name of ['one', 'two', 'three']) made.push((await create({ display_name: name }, { token })).json().id);
    const newestFirst = [...made].reverse();

    const first = await list('?limit=2', { token });
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(0, 2));
    expect(page1).toMatchObject({ limit: 2, previous_cursor: null, next_cursor: expect.any(String) });
    expect(page1.items.every((i: { private_key: unknown }) => i.private_key === null)).toBe(true);

    const page2 = (await list(`?limit=2&cursor=${encodeURIComponent(page1.next_cursor)}`, { token })).json();
    expect(page2.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(2));
    expect(page2).toMatchObject({ next_cursor: null, previous_cursor: expect.any(String) });

    const back = (await list(`?limit=2&cursor=${encodeURIComponent(page2.previous_cursor)}`, { token })).json();
    expect(back.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(0, 2));

    const whole = (await list('', { token })).json();
    expect(whole).toMatchObject({ limit: 20, next_cursor: null, previous_cursor: null });
  });
});

describe('errors', () => {
  it('answers 409 with resource_id when the key is registered already', async () => {
    const key = localKey();
    const first = (await create({ display_name: 'First', public_key: key.publicKeyPem })).json();
    for (const public_key of [key.publicKeyPem, key.jwk]) {
      const res = await create({ display_name: 'Second', public_key });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        type: 'error',
        code: 'duplicate_record',
        status: 409,
        message: `This public key is already registered as API key pair ${first.id}`,
        details: [],
        resource_id: first.id,
      });
    }
  });

  it('answers 409 without resource_id for the key of a deleted pair: it cannot come back', async () => {
    const key = localKey();
    const first = (await create({ display_name: 'Retired', public_key: key.jwk })).json();
    expect((await remove(first.id)).statusCode).toBe(204);
    const res = await create({ display_name: 'Revived', public_key: key.publicKeyPem });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'duplicate_record',
      resource_id: null,
      message: expect.stringContaining('deleted'),
    });
  });

  it('refuses RSA, P-256 and Ed25519 keys with 400 naming ES512', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const p256 = localKey('P-256');
    const ed = generateKeyPairSync('ed25519').publicKey;
    const keys = [
      rsa.export({ format: 'pem', type: 'spki' }).toString(),
      rsa.export({ format: 'pem', type: 'pkcs1' }).toString(),
      rsa.export({ format: 'jwk' }),
      p256.publicKeyPem,
      p256.jwk,
      ed.export({ format: 'pem', type: 'spki' }).toString(),
      ed.export({ format: 'jwk' }),
    ];
    for (const public_key of keys) {
      const res = await create({ display_name: 'Wrong', public_key });
      expect(res.statusCode, JSON.stringify(public_key).slice(0, 60)).toBe(400);
      const message = 'Only ES512 keys (ECDSA on curve P-521) are accepted';
      expect(res.json()).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message,
        details: [{ location: 'body', pointer: '/public_key', message, type: 'value_error' }],
      });
    }
  });

  it('refuses malformed keys and a private key sent as public_key, without echoing it', async () => {
    const key = localKey();
    const cases: Array<[unknown, RegExp]> = [
      ['not a key', /PEM public key/],
      ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----', /not a readable/],
      [{ kty: 'EC', crv: 'P-521', x: key.jwk.x, y: key.jwk.x }, /not a valid P-521/],
      [{ kty: 'EC', crv: 'P-521' }, /not a valid P-521/],
      [key.privateKeyPem, /private key/],
      [{ ...key.jwk, d: 'c2VjcmV0' }, /private key/],
    ];
    for (const [public_key, message] of cases) {
      const res = await create({ display_name: 'Bad', public_key });
      expect(res.statusCode, String(message)).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(message),
        details: [{ location: 'body', pointer: '/public_key' }],
      });
      expect(res.body).not.toContain('BEGIN PRIVATE KEY');
    }
  });

  it('answers 400 for an unknown merchant account', async () => {
    const res = await create({ display_name: 'Nowhere', merchant_account_id: 'no-such-account' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      message: 'The merchant account no-such-account does not exist',
      details: [{ location: 'body', pointer: '/merchant_account_id', type: 'value_error' }],
    });
  });

  it('answers 422 naming each bad field', async () => {
    const res = await create({ display_name: '', merchant_account_id: 5, public_key: 42 });
    expect(res.statusCode).toBe(422);
    const locs = res.json().detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.display_name', 'body.merchant_account_id', 'body.public_key']));
    const missing = await create({});
    expect(missing.json().detail).toEqual([{ loc: ['body', 'display_name'], msg: 'Field required', type: 'missing' }]);
    const put = await update('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', { active: 'no', display_name: 'x'.repeat(201) });
    expect(put.statusCode).toBe(422);
  });

  it('answers 404 for an unknown pair and 422 for a malformed id', async () => {
    for (const id of ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'A'.repeat(43)]) {
      expect((await get(id)).statusCode).toBe(404);
      expect((await update(id, { active: false })).statusCode).toBe(404);
      expect((await remove(id)).statusCode).toBe(404);
    }
    const res = await get('not-an-id');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['path', 'api_key_pair_id']);
  });
});

describe('security', () => {
  let existing: string;
  const pairId = async () => (existing ??= (await create({ display_name: 'Scope target' })).json().id);

  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/api-key-pairs', payload: { display_name: 'S' } }),
      scope: 'api-key-pairs.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, { request: () => ({ method: 'GET', url: '/api-key-pairs' }), scope: 'api-key-pairs.read' }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'GET', url: `/api-key-pairs/${await pairId()}` }),
      scope: 'api-key-pairs.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'PUT', url: `/api-key-pairs/${await pairId()}`, payload: { active: false } }),
      scope: 'api-key-pairs.write',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'DELETE', url: `/api-key-pairs/${await pairId()}` }),
      scope: 'api-key-pairs.write',
    }));

  it('the scopes themselves grant access, as *.read and *.write do', async () => {
    expect((await list('', { scopes: ['api-key-pairs.read'] })).statusCode).toBe(200);
    expect((await create({ display_name: 'scoped' }, { scopes: ['api-key-pairs.write'] })).statusCode).toBe(201);
    expect((await create({ display_name: 'read only' }, { scopes: ['api-key-pairs.read'] })).statusCode).toBe(403);
    expect((await list('', { scopes: ['merchant-accounts.read'] })).statusCode).toBe(403);
  });

  it('a caller limited to one merchant account manages only the pairs limited to it', async () => {
    const mine = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const limited = await createTestKeyPair(t.deps, mine);
    const token = await limited.token();
    const otherKey = localKey();
    const theirs = (
      await create({ display_name: 'theirs', merchant_account_id: other, public_key: otherKey.jwk })
    ).json();
    const everywhere = (await create({ display_name: 'everywhere' })).json();

    const created = await create({ display_name: 'mine' }, { token });
    expect(created.statusCode).toBe(201);
    expect(created.json().merchant_account_id).toBe(mine);
    expect(
      (await create({ display_name: 'explicit', merchant_account_id: mine }, { token })).json().merchant_account_id,
    ).toBe(mine);
    for (const merchant_account_id of [other, null, 'no-such-account']) {
      const res = await create({ display_name: 'escape', merchant_account_id }, { token });
      expect(res.statusCode, String(merchant_account_id)).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden' });
    }

    const listed = (await list('?limit=100', { token })).json().items;
    expect(listed.length).toBe(3);
    expect(listed.every((item: { merchant_account_id: string }) => item.merchant_account_id === mine)).toBe(true);

    for (const pair of [theirs, everywhere]) {
      expect((await get(pair.id, { token })).statusCode).toBe(404);
      expect((await get(pair.kid, { token })).statusCode).toBe(404);
      expect((await update(pair.id, { active: false }, { token })).statusCode).toBe(404);
      expect((await remove(pair.id, { token })).statusCode).toBe(404);
      expect((await get(pair.id)).json().active).toBe(true);
    }
    // The conflict is reported, but the pair the caller cannot see is not named.
    const duplicate = await create({ display_name: 'copy', public_key: otherKey.publicKeyPem }, { token });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toMatchObject({ resource_id: null, message: 'This public key is already registered' });

    // A cursor is bound to the caller's reach.
    const page = (await list('?limit=1', { token })).json();
    const replay = await list(`?limit=1&cursor=${encodeURIComponent(page.next_cursor)}`);
    expect(replay.statusCode).toBe(400);

    expect((await update(created.json().id, { display_name: 'mine, renamed' }, { token })).statusCode).toBe(200);
    expect((await remove(created.json().id, { token })).statusCode).toBe(204);
  });

  it('holds a token limited by its merchant_account_id claim to that account, as a limited key pair is held', async () => {
    // The reproduction: `svc token --merchant-account m2 --scope api-key-pairs.write --scope api-key-pairs.read`.
    const m2 = await createMerchantAccount(t.deps);
    const token = await t.keys.token({ merchantAccountId: m2, scopes: ['api-key-pairs.write', 'api-key-pairs.read'] });
    const everywhere = (await create({ display_name: 'instance-wide' })).json();

    const created = await create({ display_name: 'made with the claim' }, { token });
    expect(created.statusCode).toBe(201);
    expect(created.json().merchant_account_id).toBe(m2);
    const escaping = await create({ display_name: 'escape', merchant_account_id: null }, { token });
    expect(escaping.statusCode).toBe(403);
    expect(escaping.json().message).toBe(
      `This credential is limited to merchant account ${m2}; it can only create key pairs limited to that account`,
    );

    const listed = (await list('?limit=100', { token })).json().items;
    expect(listed.map((item: { id: string }) => item.id)).toEqual([created.json().id]);
    // The instance-wide pairs, the bootstrap's and the one that signed this token included, are outside its reach.
    for (const id of [everywhere.id, everywhere.kid, t.keys.id]) {
      expect((await get(id, { token })).statusCode).toBe(404);
      expect((await update(id, { active: false }, { token })).statusCode).toBe(404);
      expect((await remove(id, { token })).statusCode).toBe(404);
    }
    expect((await get(everywhere.id)).json()).toMatchObject({ active: true, revoked_at: null });
  });

  it("writes an audit entry for each create, update and delete, under the request's merchant account", async () => {
    const account = await createMerchantAccount(t.deps);
    const options = { merchantAccountId: account };
    const created = (await create({ display_name: 'Audited' }, options)).json();
    await update(created.id, { display_name: 'Audited, renamed' }, options);
    await update(created.id, {}, options);
    await remove(created.id, options);

    const res = await t.request({
      method: 'GET',
      url: '/audit-logs?resource_type=api-key-pair',
      merchantAccountId: account,
    });
    expect(res.statusCode).toBe(200);
    const entries = res.json().items;
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['deleted', 'updated', 'created']);
    expect(entries.map((e: { resource: unknown }) => e.resource)).toEqual([
      { type: 'api-key-pair', id: created.id, name: 'Audited, renamed' },
      { type: 'api-key-pair', id: created.id, name: 'Audited, renamed' },
      { type: 'api-key-pair', id: created.id, name: 'Audited' },
    ]);
    expect(entries[0].user).toMatchObject({ id: t.keys.id, name: 'API key test' });
  });

  it('answers 403 and changes nothing when the merchant account header names an unknown account', async () => {
    const res = await create({ display_name: 'Unfiled' }, { merchantAccountId: 'no-such-account' });
    expect(res.statusCode).toBe(403);
    const names = (await list('?limit=100')).json().items.map((item: { display_name: string }) => item.display_name);
    expect(names).not.toContain('Unfiled');
  });

  it('never writes a private key to the logs', async () => {
    const generated = (await create({ display_name: 'Logged?' })).json();
    const sent = localKey();
    await create({ display_name: 'Sent by mistake', public_key: sent.privateKeyPem });
    await create({ display_name: 'Sent by mistake', public_key: { ...sent.jwk, d: 'c2VjcmV0LWQtdmFsdWU' } });
    expect(t.logs.length).toBeGreaterThan(0);
    const logs = t.logs.join('\n');
    for (const pem of [generated.private_key as string, sent.privateKeyPem]) {
      const body = pem.split('\n').filter((line) => line && !line.startsWith('-----'));
      for (const line of body) expect(logs).not.toContain(line);
    }
    expect(logs).not.toContain('PRIVATE KEY-----\n');
    expect(logs).not.toContain('c2VjcmV0LWQtdmFsdWU');
  });
});
