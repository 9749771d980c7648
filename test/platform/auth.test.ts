import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { defineRoute } from '../../src/http/define-route.ts';
import { mintToken } from '../../src/cli/token.ts';
import { revokeKeyPair } from '../../src/modules/api-key-pairs/api-key-pairs.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { createTestKeyPair } from '../helpers/tokens.ts';

/** Echoes the merchant account a request acts on (merchant-scoped, like most operations). */
async function whoami(app: FastifyInstance): Promise<void> {
  app.route(
    defineRoute({
      operationId: 'whoami',
      method: 'GET',
      url: '/test-only/whoami',
      scope: 'buyers.read',
      tags: ['test'],
      summary: 'echo',
      status: 200,
      response: Type.Object({ merchant_account_id: Type.String() }),
      handler: async ({ ctx }) => ({ merchant_account_id: ctx.merchantAccountId }),
    }),
  );
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, { plugins: [whoami] });
});
afterAll(async () => t.close());

const get = (token: string | null, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: '/merchant-accounts/default', token, headers });
/** The spec's 401 body; its message says which class of failure, after the spec's sentence (issue 51). */
const UNAUTHORIZED = (why: string) => ({
  type: 'error',
  code: 'unauthorized',
  status: 401,
  message: `No valid API authentication found: ${why}`,
  details: [],
});
const refusedWith = async (token: string) =>
  (await get(token)).json().message.replace('No valid API authentication found: ', '');

async function signWith(
  claims: Record<string, unknown>,
  header: Record<string, unknown>,
  iat = Math.floor(Date.now() / 1000),
  exp = iat + 60,
) {
  const key = await importPKCS8(t.keys.privateKeyPem, 'ES512');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES512', kid: t.keys.thumbprint, ...header } as never)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
}

describe('happy', () => {
  it('accepts an ES512 token with the kid of a registered key and the scope', async () => {
    expect((await get(await t.keys.token({ scopes: ['merchant-accounts.read'] }))).statusCode).toBe(200);
    expect((await get(await t.keys.token({ scopes: ['*.read'] }))).statusCode).toBe(200);
  });

  it('accepts a token whose clock is up to 30 s ahead', async () => {
    const token = await t.keys.token({ now: Date.now() + 25_000 });
    expect((await get(token)).statusCode).toBe(200);
  });

  it('uses the merchant account of the header, else the token claim, else default', async () => {
    const other = await createMerchantAccount(t.deps);
    const whoami = (token: string, headers: Record<string, string> = {}) =>
      t.request({ method: 'GET', url: '/test-only/whoami', token, headers });
    const plain = await t.keys.token();
    expect((await whoami(plain, { 'x-svc-merchant-account-id': other })).json()).toEqual({
      merchant_account_id: other,
    });
    expect((await whoami(plain)).json()).toEqual({ merchant_account_id: 'default' });
    const pinned = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['*.read'],
      lifetimeSeconds: 60,
      merchantAccountId: other,
    });
    expect((await whoami(pinned)).json()).toEqual({ merchant_account_id: other });
    const limited = await createTestKeyPair(t.deps, other);
    expect((await whoami(await limited.token())).json()).toEqual({ merchant_account_id: other });
  });
});

describe('errors', () => {
  it('answers 401 for missing, malformed or non-bearer credentials', async () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'missing authorization header'],
      ['', 'missing authorization header'],
      ['Bearer', 'malformed authorization header'],
      ['Basic dXNlcjpwYXNz', 'malformed authorization header'],
      ['Bearer not-a-jwt', 'malformed authorization header'],
      ['Bearer a.b.c', 'malformed token'],
    ];
    for (const [authorization, why] of cases) {
      const res = await t.request({
        method: 'GET',
        url: '/merchant-accounts/default',
        token: null,
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json(), String(authorization)).toEqual(UNAUTHORIZED(why));
    }
  });

  it('refuses alg none, HS512 and RS512', async () => {
    const body = Buffer.from(
      JSON.stringify({
        scopes: ['*.read'],
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 60,
      }),
    ).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: t.keys.thumbprint })).toString('base64url')}.${body}.`;
    expect((await get(none)).statusCode).toBe(401);
    const hs = await new SignJWT({ scopes: ['*.read'] })
      .setProtectedHeader({ alg: 'HS512', kid: t.keys.thumbprint })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(t.keys.thumbprint.repeat(3)));
    expect((await get(hs)).statusCode).toBe(401);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs = await new SignJWT({ scopes: ['*.read'] })
      .setProtectedHeader({ alg: 'RS512', kid: t.keys.thumbprint })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(rsa.privateKey);
    expect((await get(rs)).statusCode).toBe(401);
  });

  it('refuses expired, not-yet-valid, future-issued and too-long-lived tokens', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await get(await signWith({ scopes: ['*.read'] }, {}, now - 600, now - 60));
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual(UNAUTHORIZED('token expired'));
    expect(await refusedWith(await signWith({ scopes: ['*.read'], nbf: now + 300 }, {}))).toBe('token not yet valid');
    expect(await refusedWith(await signWith({ scopes: ['*.read'] }, {}, now + 300, now + 400))).toBe(
      'token not yet valid',
    );
    // TOKEN_MAX_LIFETIME_SECONDS, 24 h by default.
    expect(await refusedWith(await signWith({ scopes: ['*.read'] }, {}, now, now + 30 * 24 * 3600))).toBe(
      'lifetime exceeds 24 h',
    );
    expect(await refusedWith(await signWith({ scopes: ['*.read'] }, {}, now, now + 24 * 3600 + 1))).toBe(
      'lifetime exceeds 24 h',
    );
  });

  it('refuses a token without scopes, a bad signature and an unknown kid', async () => {
    expect(await refusedWith(await signWith({}, {}))).toBe('malformed token');
    const good = await t.keys.token();
    const [h, p, s] = good.split('.');
    const flipped = `${h}.${p}.${s!.slice(0, 10)}${s![10] === 'A' ? 'B' : 'A'}${s!.slice(11)}`;
    expect((await get(flipped)).statusCode).toBe(401);
    expect(await refusedWith(flipped)).toBe('invalid signature');
    // The same signature over a payload with more scopes.
    const widened = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(p!, 'base64url').toString()),
        scopes: ['*.read', '*.write', 'embed'],
      }),
    ).toString('base64url');
    expect(await refusedWith(`${h}.${widened}.${s}`)).toBe('invalid signature');
    // The kid is not echoed: an unknown key and a revoked one answer alike.
    const unknown = await get(await signWith({ scopes: ['*.read'] }, { kid: 'unknown-kid' }));
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual(UNAUTHORIZED('unknown key'));
  });

  it('answers 403 for an unknown merchant account', async () => {
    const res = await t.request({ method: 'GET', url: '/test-only/whoami', merchantAccountId: 'no-such-account' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', status: 403 });
  });
});

describe('security', () => {
  it('a revoked key pair stops working at once', async () => {
    const pair = await createTestKeyPair(t.deps);
    const token = await pair.token();
    expect((await get(token)).statusCode).toBe(200);
    await revokeKeyPair(t.deps, pair.id);
    expect((await get(token)).statusCode).toBe(401);
    expect(await refusedWith(token)).toBe('unknown key');
  });

  it('a key pair limited to a merchant account cannot act on another', async () => {
    const mine = await createMerchantAccount(t.deps);
    const pair = await createTestKeyPair(t.deps, mine);
    const token = await pair.token();
    const res = await t.request({ method: 'GET', url: '/test-only/whoami', token, merchantAccountId: 'default' });
    expect(res.statusCode).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/test-only/whoami', token, merchantAccountId: mine })).statusCode,
    ).toBe(200);
  });

  it('a token pinned to a merchant account cannot name another in the header', async () => {
    const mine = await createMerchantAccount(t.deps);
    const token = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['*.read'],
      lifetimeSeconds: 60,
      merchantAccountId: mine,
    });
    expect(
      (await t.request({ method: 'GET', url: '/test-only/whoami', token, merchantAccountId: 'default' })).statusCode,
    ).toBe(403);
    expect((await t.request({ method: 'GET', url: '/test-only/whoami', token })).statusCode).toBe(200);
  });
});
