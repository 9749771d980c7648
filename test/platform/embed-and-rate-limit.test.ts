import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { mintToken } from '../../src/cli/token.ts';
import { defineRoute } from '../../src/http/define-route.ts';
import { Nullable } from '../../src/http/schemas/common.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * Stand-ins for the operations a checkout front end calls (create transaction, gift card balances,
 * checkout session fields), which land with their own resource groups: these exercise the shared
 * mechanism (embed scope, pins, enumeration limit, checkout session credential) on its own.
 */
async function checkoutRoutes(app: FastifyInstance): Promise<void> {
  const Echo = Type.Object({ merchant_account_id: Type.String(), body: Type.Any() });
  app.route(
    defineRoute({
      operationId: 'testCheckout',
      method: 'POST',
      url: '/test-only/checkout',
      scope: 'transactions.write',
      tags: ['test'],
      summary: 'embed stand-in',
      status: 201,
      embed: true,
      enumerationLimited: true,
      idempotent: false,
      body: Type.Object({
        amount: Type.Integer(),
        currency: Type.String(),
        metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
      }),
      response: Echo,
      handler: async ({ ctx, body }) => ({ merchant_account_id: ctx.merchantAccountId, body }),
    }),
  );
  app.route(
    defineRoute({
      operationId: 'testAdmin',
      method: 'GET',
      url: '/test-only/admin',
      scope: 'buyers.read',
      tags: ['test'],
      summary: 'server-to-server stand-in',
      status: 200,
      response: Type.Object({ ok: Type.Boolean() }),
      handler: async () => ({ ok: true }),
    }),
  );
  app.route(
    defineRoute({
      operationId: 'testSessionFields',
      method: 'POST',
      url: '/test-only/sessions/:session_id/fields',
      scope: null,
      credential: 'checkout-session',
      enumerationLimited: true,
      idempotent: false,
      tags: ['test'],
      summary: 'checkout session stand-in',
      status: 204,
      params: Type.Object({ session_id: Type.String() }),
      response: null,
      handler: async () => undefined,
    }),
  );
}

let t: TestApp;
let second: FastifyInstance;
const sessions = new Map<string, { merchantAccountId: string; expiresAt: Date }>();

beforeAll(async () => {
  t = await buildTestApp({}, { plugins: [checkoutRoutes] });
  t.deps.resolveCheckoutSession = async (_deps, id) => {
    const session = sessions.get(id);
    return session ? { id, ...session } : null;
  };
  // A second app on the same database: another server process as far as the limiter can tell.
  second = await buildApp(t.deps, {
    plugins: [checkoutRoutes],
    logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
});
afterAll(async () => {
  await second.close();
  await t.close();
});

const embedToken = (embed?: Record<string, unknown>) =>
  mintToken({
    privateKeyPem: t.keys.privateKeyPem,
    scopes: ['embed'],
    lifetimeSeconds: 3600,
    ...(embed ? { embed } : {}),
  });
const checkout = (token: string, payload: object, headers: Record<string, string> = {}, app: FastifyInstance = t.app) =>
  app.inject({
    method: 'POST',
    url: '/test-only/checkout',
    headers: { authorization: `Bearer ${token}`, ...headers },
    payload,
  });

/** Waits for a fresh rate limit window when the current one is about to end, so a test stays in one window. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('happy', () => {
  it('lets an embed token call an embed operation, filling pinned values the body leaves out', async () => {
    const token = await embedToken({ amount: 1299, currency: 'EUR', metadata: { order: 'A-1' } });
    const res = await checkout(token, {});
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      merchant_account_id: 'default',
      body: { amount: 1299, currency: 'EUR', metadata: { order: 'A-1' } },
    });
    expect((await checkout(token, { amount: 1299, currency: 'EUR', metadata: { order: 'A-1' } })).statusCode).toBe(201);
  });

  it('acts on the merchant account pinned by the embed claim', async () => {
    const account = await createMerchantAccount(t.deps);
    const token = await embedToken({ merchant_account_id: account });
    const res = await checkout(token, { amount: 1, currency: 'USD' });
    expect(res.json().merchant_account_id).toBe(account);
    expect(
      (await checkout(token, { amount: 1, currency: 'USD' }, { 'x-svc-merchant-account-id': 'default' })).statusCode,
    ).toBe(403);
  });

  it('never rate limits server-to-server tokens', async () => {
    const token = await t.keys.token();
    for (let i = 0; i < 60; i++) expect((await checkout(token, { amount: 1, currency: 'USD' })).statusCode).toBe(201);
  });
});

describe('errors', () => {
  it('refuses a body that contradicts a pinned value with 403 naming the fields', async () => {
    const token = await embedToken({ amount: 1299, currency: 'EUR', metadata: { order: 'A-1' } });
    const res = await checkout(token, { amount: 1, currency: 'EUR', metadata: { order: 'B-2' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'forbidden',
      status: 403,
      message: 'The request contradicts the embed token: amount, metadata must equal the pinned values',
      details: [
        {
          location: 'body',
          pointer: '/amount',
          message: 'Must equal the value pinned by the embed token',
          type: 'embed_pin_mismatch',
        },
        {
          location: 'body',
          pointer: '/metadata',
          message: 'Must equal the value pinned by the embed token',
          type: 'embed_pin_mismatch',
        },
      ],
    });
  });

  it('keeps embed tokens off every other operation', async () => {
    const token = await embedToken();
    const res = await t.app.inject({
      method: 'GET',
      url: '/test-only/admin',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Embed tokens may not call this operation');
    expect(
      (await t.app.inject({ method: 'GET', url: '/merchant-accounts', headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(403);
  });
});

describe('security', () => {
  it('keeps an embed token off every operation of the route table not open to embed tokens, whatever other scopes it lists', async () => {
    const token = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['embed', '*.read', '*.write'],
      lifetimeSeconds: 3600,
    });
    const routes = t.registeredRoutes.filter(
      (route) =>
        !route.public &&
        route.method !== 'HEAD' &&
        (route.config.credential ?? 'bearer') === 'bearer' &&
        !route.url.startsWith('/test-only'),
    );
    const refusals: string[] = [];
    const failures: string[] = [];
    for (const route of routes) {
      // The scope check runs before validation: any path value and body reach it.
      const url = route.url.replace(/:[a-z_]+/g, uuidv7()).replace('*', 'x');
      const res = await t.app.inject({
        method: route.method as 'GET',
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(['POST', 'PUT'].includes(route.method) ? { payload: {} } : {}),
      });
      const refused = res.statusCode === 403 && res.json().message === 'Embed tokens may not call this operation';
      if (refused) refusals.push(route.config.operationId!);
      if (refused === (route.config.embed === true))
        failures.push(
          `${route.method} ${route.url} (embed: ${route.config.embed === true}) → ${res.statusCode} ${res.body.slice(0, 120)}`,
        );
    }
    expect(failures).toEqual([]);
    // The check reached the route table: most operations are closed to embed tokens, a few open.
    expect(refusals.length).toBeGreaterThan(100);
    expect(routes.some((route) => route.config.embed === true)).toBe(true);
  });

  it('allows exactly 50 calls a minute per embed token across processes; the 51st gets 429 with Retry-After', async () => {
    await freshWindow();
    const token = await embedToken();
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++)
      statuses.push(
        (await checkout(token, { amount: 1, currency: 'USD' }, {}, i % 2 === 0 ? t.app : second)).statusCode,
      );
    expect(statuses.every((s) => s === 201)).toBe(true);
    const over = await checkout(token, { amount: 1, currency: 'USD' }, {}, second);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toEqual({
      type: 'error',
      code: 'too_many_requests',
      status: 429,
      message: 'Rate limit hit; retry later',
      details: [],
    });
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Malformed attempts count too, and another token has its own budget.
    expect((await checkout(token, { nonsense: true })).statusCode).toBe(429);
    expect((await checkout(await embedToken(), { amount: 1, currency: 'USD' })).statusCode).toBe(201);
  });

  it('authenticates a checkout session by its id and limits it per session', async () => {
    await freshWindow();
    const id = uuidv7();
    sessions.set(id, { merchantAccountId: 'default', expiresAt: new Date(Date.now() + 3600_000) });
    const call = (session: string) =>
      t.app.inject({ method: 'POST', url: `/test-only/sessions/${session}/fields`, payload: {} });
    for (let i = 0; i < 50; i++) expect((await call(id)).statusCode).toBe(204);
    expect((await call(id)).statusCode).toBe(429);
    expect((await call(uuidv7())).statusCode).toBe(401);
    const expired = uuidv7();
    sessions.set(expired, { merchantAccountId: 'default', expiresAt: new Date(Date.now() - 1000) });
    expect((await call(expired)).statusCode).toBe(401);
    expect((await call('not-a-uuid')).statusCode).toBe(401);
  });
});
