import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { defineRoute } from '../../src/http/define-route.ts';

const ERROR_KEYS = ['code', 'details', 'message', 'status', 'type'];

/** A route that fails unexpectedly, with card data in the cause, to test the 500 path. */
async function failingRoutes(app: FastifyInstance): Promise<void> {
  app.route(
    defineRoute({
      operationId: 'explode',
      method: 'GET',
      url: '/test-only/explode',
      scope: 'merchant-accounts.read',
      tags: ['test'],
      summary: 'fails',
      status: 200,
      response: Type.Object({}),
      handler: async () => {
        throw new Error('driver failed while handling card 4111111111111111 for secret s3cr3t');
      },
    }),
  );
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({}, { plugins: [failingRoutes] });
});
afterAll(async () => t.close());

describe('errors', () => {
  it('answers 404 with the error body for an unknown path', async () => {
    const res = await t.request({ method: 'GET', url: '/no-such-thing' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'not_found',
      status: 404,
      message: 'The resource could not be found',
      details: [],
    });
  });

  it('answers 405 on every known path called with a wrong method', async () => {
    const paths = t.app.printRoutes({ commonPrefix: false });
    expect(paths).toContain('merchant-accounts');
    for (const [method, url] of [
      ['DELETE', '/merchant-accounts'],
      ['PUT', '/merchant-accounts'],
      ['PATCH', '/merchant-accounts/default'],
      ['POST', '/merchant-accounts/default'],
      ['POST', '/healthz'],
      ['DELETE', '/openapi.json'],
    ] as const) {
      const res = await t.request({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.json()).toEqual({
        type: 'error',
        code: 'method_not_allowed',
        status: 405,
        message: 'Method Not Allowed',
        details: [],
      });
      expect(res.headers.allow).toBeTruthy();
    }
  });

  it('answers 400 for malformed JSON, without echoing the body', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      headers: { 'content-type': 'application/json' },
      payload: '{"id":"4111111111111111",',
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(ERROR_KEYS);
    expect(body.message).toMatch(/^Malformed JSON in request body/);
    expect(res.body).not.toContain('4111');
  });

  it('answers 400 naming the limit for a body over 1 MiB', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id: 'big', display_name: 'x'.repeat(1024 * 1024) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: 'Request body is larger than the limit of 1048576 bytes (1 MiB)',
      details: [],
    });
  });

  it('answers 400 for a NUL character, which PostgreSQL text cannot hold', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      headers: { 'content-type': 'application/json' },
      payload: '{"id":"nul","display_name":"a\\u0000b"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Strings in the request body may not contain the NUL character (\\u0000)');
    const query = await t.request({ method: 'GET', url: '/merchant-accounts?search=a%00b' });
    expect(query.statusCode).toBe(400);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/application\/json/);
  });

  it('answers 422 with body, query, path and header locations', async () => {
    const body = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id: 'x', display_name: '', loon_accepted_schemes: ['visa', 'NOT VALID'] },
    });
    expect(body.statusCode).toBe(422);
    expect(body.json().detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'display_name'], msg: 'String should have at least 1 character', type: 'string_too_short' },
        {
          loc: ['body', 'loon_accepted_schemes', 1],
          msg: expect.stringMatching(/^String should match pattern/),
          type: 'string_pattern_mismatch',
        },
      ]),
    );
    const query = await t.request({ method: 'GET', url: '/merchant-accounts?limit=abc' });
    expect(query.json()).toEqual({
      detail: [{ loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'integer_type' }],
    });
    const path = await t.request({ method: 'GET', url: `/merchant-accounts/${'a'.repeat(300)}` });
    expect(path.json().detail[0].loc).toEqual(['path', 'merchant_account_id']);
    const header = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      headers: { 'idempotency-key': 'k'.repeat(256) },
      payload: { id: 'hdr', display_name: 'h' },
    });
    expect(header.statusCode).toBe(422);
    expect(header.json().detail[0].loc).toEqual(['header', 'idempotency-key']);
  });

  it('teaches minor units where an amount arrives as text or a decimal, on every amount field', async () => {
    const minor = 'Input should be an integer in minor units, e.g. 1299 for 12.99';
    for (const amount of ['12.99', 12.99]) {
      const created = await t.request({
        method: 'POST',
        url: '/transactions',
        payload: {
          amount,
          currency: 'USD',
          payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
        },
      });
      expect(created.statusCode).toBe(422);
      expect(created.json().detail).toEqual([{ loc: ['body', 'amount'], msg: minor, type: 'integer_type' }]);
      const refund = await t.request({
        method: 'POST',
        url: '/transactions/00000000-0000-4000-8000-000000000000/refunds',
        payload: { amount },
      });
      expect(refund.statusCode).toBe(422);
      expect(refund.json().detail).toEqual([{ loc: ['body', 'amount'], msg: minor, type: 'integer_type' }]);
    }
    const payout = await t.request({
      method: 'POST',
      url: '/payouts',
      payload: {
        amount: '12.99',
        currency: 'USD',
        payment_service_id: '00000000-0000-4000-8000-000000000000',
        payment_method: { method: 'id', id: '00000000-0000-4000-8000-000000000000' },
      },
    });
    expect(payout.statusCode).toBe(422);
    expect(payout.json().detail).toContainEqual({ loc: ['body', 'amount'], msg: minor, type: 'integer_type' });
    // Nested amounts (cart items) and query filters carry the same message; other integers keep theirs.
    const cart = await t.request({
      method: 'POST',
      url: '/transactions',
      payload: { amount: 100, currency: 'USD', cart_items: [{ name: 'n', quantity: 1, unit_amount: 1.5 }] },
    });
    expect(cart.json().detail).toContainEqual({
      loc: ['body', 'cart_items', 0, 'unit_amount'],
      msg: minor,
      type: 'integer_type',
    });
    const list = await t.request({ method: 'GET', url: '/transactions?amount_eq=12.99' });
    expect(list.json().detail).toEqual([{ loc: ['query', 'amount_eq'], msg: minor, type: 'integer_type' }]);
  });

  it('does not coerce body types ("5" is not an integer)', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id: 'coerce', display_name: 'c', over_capture_amount: '5' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['body', 'over_capture_amount'], msg: 'Input should be a valid integer', type: 'integer_type' },
    ]);
  });

  it('answers 500 with the generic message and logs the cause, redacted, with the request id', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/test-only/explode',
      headers: { 'x-request-id': 'req-explode-1' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'server_error',
      status: 500,
      message: 'Request could not be processed',
      details: [],
    });
    expect(res.body).not.toMatch(/stack|driver|4111/);
    const line = t.logs.find((l) => l.includes('request failed unexpectedly') && l.includes('req-explode-1'));
    expect(line).toBeDefined();
    expect(line).toContain('driver failed');
    expect(line).not.toContain('4111111111111111');
    expect(line).toContain('[CARD ************1111]');
  });
});

describe('happy', () => {
  it('sets x-request-id, echoing a valid incoming one', async () => {
    const echoed = await t.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const generated = await t.request({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers health and readiness without a token', async () => {
    expect((await t.request({ method: 'GET', url: '/healthz', token: null })).json()).toEqual({ status: 'ok' });
    const ready = await t.request({ method: 'GET', url: '/readyz', token: null });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('writes one access log line per request with id, method, route, status and duration', async () => {
    await t.request({ method: 'GET', url: '/merchant-accounts?limit=1', headers: { 'x-request-id': 'access-log-1' } });
    const line = t.logs.find((l) => l.includes('request completed') && l.includes('access-log-1'));
    expect(JSON.parse(line!)).toMatchObject({
      reqId: 'access-log-1',
      method: 'GET',
      route: '/merchant-accounts',
      operationId: 'listMerchantAccounts',
      status: 200,
      durationMs: expect.any(Number),
    });
  });
});

describe('security', () => {
  it('never logs the Authorization header or the token', async () => {
    const token = await t.keys.token();
    await t.request({ method: 'GET', url: '/merchant-accounts', token });
    expect(t.logs.join('\n')).not.toContain(token);
  });
});
