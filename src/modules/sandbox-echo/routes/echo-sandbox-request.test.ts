import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const echo = (app: TestApp, payload?: unknown, headers: Record<string, string> = {}) =>
  app.app.inject({
    method: 'POST',
    url: '/sandbox/echo?x=1',
    headers: { 'x-hotel': 'h-1', ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

describe('happy', () => {
  it('answers the method, path, headers and JSON body it received, without a token', async () => {
    const res = await echo(t, { card: { number: '4111111111111111' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      method: 'POST',
      path: '/sandbox/echo?x=1',
      headers: expect.objectContaining({ 'x-hotel': 'h-1', 'content-type': 'application/json' }),
      body: { card: { number: '4111111111111111' } },
    });
    expect(res.headers).toMatchObject({
      'content-type': expect.stringMatching(/^application\/json/),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
  });

  it('answers null for no body', async () => {
    const res = await echo(t);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().body).toBeNull();
  });
});

describe('errors', () => {
  it('does not exist in production (404)', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    try {
      const res = await echo(production, { a: 1 });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({
        code: 'not_found',
        message: 'The sandbox echo endpoint exists in the sandbox environment only',
      });
      expect(res.body).not.toContain('h-1');
    } finally {
      await production.close();
    }
  });
});

describe('nesting', () => {
  it('refuses a body nested deeper than 100 levels with 400 (20,000 nested arrays were a 500), and echoes 100', async () => {
    const deep = await app(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expect(deep.statusCode, deep.body).toBe(400);
    expect(deep.json()).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: 'The request body nests arrays or objects more than 100 levels deep; send a flatter JSON document',
      details: [],
    });
    const ok = await app(`${'['.repeat(100)}${']'.repeat(100)}`);
    expect(ok.statusCode, ok.body).toBe(200);
  });

  const app = (raw: string) =>
    t.app.inject({
      method: 'POST',
      url: '/sandbox/echo',
      headers: { 'content-type': 'application/json' },
      payload: raw,
    });
});
