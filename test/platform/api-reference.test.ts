import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

/**
 * `/docs`, the API reference for people (docs/api-reference.md): our page, its policy and its assets
 * served by this server. The browser test (test/browser/api-reference.browser.test.ts) renders it.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('happy', () => {
  it('serves our page: title, viewport, scripts and stylesheet from this server only', async () => {
    const res = await get('/docs/', { host: 'docs.example.test:8080' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>svc API reference</title>');
    expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect([...res.body.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1])).toEqual(['./js/scalar.js', './reference.js']);
    // No inline script, no asset from another origin, no other product's name on the page.
    expect(res.body).not.toMatch(/<script>|<script type="text\/javascript">|https?:\/\/|scalar api reference|swagger/i);
  });

  it('sends a policy that allows this origin only (scripts, the document, images, fonts) and no upgrade-insecure-requests', async () => {
    const res = await get('/docs/', { host: '192.168.1.20:8080' });
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
  });

  it('redirects /docs to /docs/', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/docs/');
  });

  it('serves the renderer from node_modules, gzipped when the browser accepts it, and its configuration', async () => {
    const plain = await get('/docs/js/scalar.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('createApiReference');
    const gzipped = await get('/docs/js/scalar.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(plain.body);

    const config = await get('/docs/reference.js');
    expect(config.headers['content-type']).toBe('application/javascript; charset=utf-8');
    const settings = JSON.parse(/createApiReference\('#app', (.*)\);/.exec(config.body)![1]!);
    // Nothing fetched from elsewhere: no web fonts, no telemetry, no AI agent or MCP offer.
    expect(settings).toMatchObject({ url: '../openapi.json', withDefaultFonts: false, telemetry: false, agent: { disabled: true }, mcp: { disabled: true }, metaData: { title: 'svc API reference' } });
    expect((await get('/docs/reference.css')).headers['content-type']).toBe('text/css; charset=utf-8');
  });
});

describe('edge', () => {
  it('leaves the document to /openapi.json: the renderer adds no second copy under /docs', async () => {
    expect((await get('/docs/openapi.json')).statusCode).toBe(404);
    expect((await get('/docs/openapi.yaml')).statusCode).toBe(404);
  });
});
