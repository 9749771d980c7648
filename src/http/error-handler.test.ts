import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

// Found by the hostile-input fuzzer (test/reliability): the router answered these with Fastify's own body.
describe('errors', () => {
  it('answers malformed percent-encoding in the path with the error body', async () => {
    for (const url of ['/buyers/%zz', '/buyers/%E0%A4%A', '/webhook-subscriptions/%']) {
      const res = await t.request({ method: 'GET', url, headers: { 'x-request-id': 'bad-url-1' } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message: 'The request URL is malformed: a path segment has invalid percent-encoding',
        details: [],
      });
      expect(res.headers['x-request-id']).toBe('bad-url-1');
    }
  });

  it('answers a path parameter over 500 characters with the error body', async () => {
    const res = await t.request({ method: 'GET', url: `/payouts/${'a'.repeat(600)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: 'A path parameter is longer than 500 characters; no identifier is that long',
      details: [],
    });
  });
});

describe('happy', () => {
  it('still routes a well-encoded path', async () => {
    const res = await t.request({ method: 'GET', url: '/buyers/%30190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });
});

describe('security', () => {
  it('does not echo the malformed path, which may carry anything', async () => {
    const res = await t.request({ method: 'GET', url: '/buyers/4111111111111111%zz' });
    expect(res.body).not.toContain('4111111111111111');
  });
});
