import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { CARD_SCHEMES, renderCardSchemeIcon } from '../../../lib/card-schemes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const icon = (file: string) => t.app.inject({ method: 'GET', url: `/assets/card-schemes/${file}` });

describe('happy', () => {
  it('serves the SVG icon of every scheme without a token, cacheable and inert', async () => {
    for (const scheme of CARD_SCHEMES) {
      const res = await icon(`${scheme}.svg`);
      expect(res.statusCode, scheme).toBe(200);
      expect(res.body).toBe(renderCardSchemeIcon(scheme));
      expect(res.headers).toMatchObject({
        'content-type': 'image/svg+xml; charset=utf-8',
        'cache-control': 'public, max-age=86400',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        'x-content-type-options': 'nosniff',
      });
    }
  });

  it('is documented in OpenAPI as a public SVG operation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/assets/card-schemes/{scheme}.svg'].get;
    expect(operation).toMatchObject({ operationId: 'getCardSchemeIcon', security: [] });
    expect(Object.keys(operation.responses['200'].content)).toEqual(['image/svg+xml']);
  });
});

describe('errors', () => {
  it('answers 404 not_found for an unknown scheme or another file type', async () => {
    const unknown = await icon('laser.svg');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ type: 'error', code: 'not_found', status: 404 });
    expect((await icon('visa.png')).statusCode).toBe(404);
    expect((await icon('visa')).statusCode).toBe(404);
  });

  it('answers 422 for a scheme id of the wrong shape', async () => {
    const res = await icon('VISA.svg');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['path', 'scheme'], type: 'string_pattern_mismatch' });
  });
});

describe('security', () => {
  it('needs no token and ignores a bad one (a static asset)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/assets/card-schemes/visa.svg',
      headers: { authorization: 'Bearer nonsense' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('has no other method', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/assets/card-schemes/visa.svg' })).statusCode).toBe(405);
  });
});
