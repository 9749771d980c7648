import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

/**
 * `/docs`, the API reference for people (docs/api-reference.md): pages written by this server from
 * the OpenAPI document, with no script; `/openapi.json`
 * kept gzipped with an ETag. The browser test (test/browser/api-reference.browser.test.ts) renders
 * them on a phone.
 */

let t: TestApp;
let doc: {
  paths: Record<string, Record<string, { operationId?: string }>>;
  components: { schemas: Record<string, unknown> };
};
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

describe('happy', () => {
  it('lists every operation of the document on the index, each linked to its page, with no script', async () => {
    const res = await get('/docs/', { host: 'docs.example.test:8080' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
    expect(res.body).toContain('<title>svc API reference</title>');
    expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const ids = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(ids.length).toBeGreaterThan(150);
    const linked = [...res.body.matchAll(/<a class="operation" href="operations\/([A-Za-z]+)">/g)].map((m) => m[1]);
    expect(linked.sort()).toEqual([...ids].sort());
    expect(res.body).not.toMatch(/<script|https?:\/\/(?!localhost|127\.0\.0\.1)|scalar|swagger|redoc/i);
    // A few kilobytes on the wire, whatever the document weighs.
    const gzipped = await get('/docs/', { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.rawPayload.length).toBeLessThan(20_000);
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(res.body);
  });

  it('shows an operation: method, path, scope, parameters, body and each response, with links to its named schemas', async () => {
    const res = await get('/docs/operations/addBuyer');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(res.body).toContain('<span class="method post">POST</span> <code class="path">/buyers</code>');
    expect(res.body).toContain('scope <code>buyers.write</code>');
    expect(res.body).toContain('<code class="name">x-svc-merchant-account-id</code>');
    expect(res.body).toContain('<a href="../schemas/BuyerCreate">BuyerCreate</a>');
    // The body's fields are on the page; the schemas inside it are links.
    expect(res.body).toContain('<code class="name">external_identifier</code>');
    expect(res.body).toMatch(
      /<code class="name">billing_details<\/code> <span class="type"><a href="\.\.\/schemas\/BillingDetails\d*">/,
    );
    expect(res.body).toContain('<span class="status s2">201</span>');
    // The shared error answers, with their description and body.
    expect(res.body).toMatch(
      /<span class="status s4">422<\/span> <p>Unprocessable Entity[^<]*<code>HTTPValidationError<\/code>/,
    );
  });

  it('shows a named schema with its properties, what is required, limits, and the operations that use it', async () => {
    expect(Object.keys(doc.components.schemas)).toContain('BuyerCreate');
    const res = await get('/docs/schemas/BuyerCreate');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<code class="name">external_identifier</code>');
    expect(res.body).toMatch(/max length <code>\d+<\/code>/);
    expect(res.body).toContain('<a href="../operations/addBuyer">');
    const list = await get('/docs/schemas/');
    expect(list.body).toContain('<a href="BuyerCreate">BuyerCreate</a>');
  });

  it('keeps /openapi.json: gzipped for a browser that accepts it, 304 for its ETag', async () => {
    const plain = await get('/openapi.json');
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await get('/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(plain.body);
    const again = await get('/openapi.json', { 'if-none-match': plain.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('redirects /docs to /docs/', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/docs/');
  });
});

describe('errors', () => {
  it('answers 404 for an unknown operation or schema, and keeps nothing for it', async () => {
    for (const url of [
      '/docs/operations/noSuchOperation',
      '/docs/schemas/NoSuchSchema',
      '/docs/schemas/constructor',
      '/docs/operations/__proto__',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toContain('<h1>Not found</h1>');
    }
  });

  it('leaves the document to /openapi.json: no second copy under /docs', async () => {
    expect((await get('/docs/openapi.json')).statusCode).toBe(404);
    // The one-page explorer (Scalar's renderer) was removed: its dependencies want Node 22, and /docs is faster.
    expect((await get('/docs/explorer/')).statusCode).toBe(404);
  });
});
