import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const icon = (file: string) => t.app.inject({ method: 'GET', url: `/assets/payment-method-definitions/${file}` });

describe('happy', () => {
  it('serves an SVG badge without a token, cacheable and inert', async () => {
    const res = await icon('card.svg');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="48" height="32"[^>]* aria-label="Card">/,
    );
    expect(res.body).toContain('>CARD</text>');
    expect(res.body).not.toMatch(/<script|href=|xlink|on[a-z]+=/i);
    expect(res.headers).toMatchObject({
      'content-type': 'image/svg+xml; charset=utf-8',
      'cache-control': 'public, max-age=86400',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
    });
  });

  it('serves ids with a hyphen or an underscore', async () => {
    expect((await icon('click-to-pay.svg')).statusCode).toBe(200);
    expect((await icon('googlepay_pan_only.svg')).body).toContain('Google Pay');
  });

  it('is documented in OpenAPI as a public SVG operation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/assets/payment-method-definitions/{id}.svg'].get;
    expect(operation).toMatchObject({ operationId: 'getPaymentMethodDefinitionIcon', security: [] });
    expect(Object.keys(operation.responses['200'].content)).toEqual(['image/svg+xml']);
  });
});

describe('errors', () => {
  it('answers 404 not_found for an unknown method or another file type', async () => {
    const unknown = await icon('cheque.svg');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ type: 'error', code: 'not_found', status: 404 });
    expect((await icon('card.png')).statusCode).toBe(404);
    expect((await icon('toString.svg')).statusCode).toBe(422);
    expect((await icon('constructor.svg')).statusCode).toBe(404);
  });

  it('answers 422 for an id of the wrong shape', async () => {
    const res = await icon('CARD.svg');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'string_pattern_mismatch' });
  });
});

describe('security', () => {
  it('needs no token and ignores a bad one (a static asset)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/assets/payment-method-definitions/card.svg',
      headers: { authorization: 'Bearer nonsense' },
    });
    expect(res.statusCode).toBe(200);
  });
});
