import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/build-test-app.ts';
import { CONSOLE_CSP, MISSING_BUILD_TEXT } from './console.ts';

/** A console build as Vite writes it: index.html and hashed assets. */
function writeBuild(dir: string, version: string): void {
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><title>svc dashboard</title><script type="module" src="/dashboard/assets/index-${version}.js"></script>`,
  );
  fs.writeFileSync(
    path.join(dir, 'assets', `index-${version}.js`),
    `console.log(${JSON.stringify(version)});`.repeat(50),
  );
  fs.writeFileSync(path.join(dir, 'assets', `index-${version}.css`), 'body { margin: 0 }');
}

let t: TestApp;
let bare: TestApp;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-'));
  writeBuild(dir, 'a1b2c3');
  t = await buildTestApp({}, { consoleDir: dir });
  bare = await buildTestApp({}, { consoleDir: path.join(dir, 'no-build-here') });
});
afterAll(async () => {
  await t?.close();
  await bare?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('happy', () => {
  it('serves index.html at /dashboard/ with no-cache and a strict policy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('/dashboard/assets/index-a1b2c3.js');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it("answers the console's own routes (a reload of /dashboard/transactions/ID) with the same index.html", async () => {
    for (const url of [
      '/dashboard/transactions/0190a4c1-0000-7000-8000-000000000000',
      '/dashboard/setup?token=abc',
      '/dashboard/api-keys',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.body, url).toContain('index-a1b2c3.js');
    }
  });

  it('redirects /dashboard to /dashboard/', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard' });
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe('/dashboard/');
  });

  it('serves hashed assets for a year, immutable, gzipped when accepted', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/dashboard/assets/index-a1b2c3.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzipped = await t.app.inject({
      method: 'GET',
      url: '/dashboard/assets/index-a1b2c3.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(gzipped.rawPayload).toString()).toBe(plain.body);
    expect(gzipped.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    const css = await t.app.inject({ method: 'GET', url: '/dashboard/assets/index-a1b2c3.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('picks up a new build without a restart', async () => {
    writeBuild(dir, 'd4e5f6');
    // A new mtime even on a coarse clock.
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(dir, 'index.html'), later, later);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/' })).body).toContain('index-d4e5f6.js');
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/assets/index-d4e5f6.js' })).statusCode).toBe(200);
  });
});

describe('errors', () => {
  it('answers an unknown asset with 404 and never with the page', async () => {
    for (const url of [
      '/dashboard/assets/index-000000.js',
      '/dashboard/assets/%2e%2e%2findex.html',
      '/dashboard/assets/',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().code, url).toBe('not_found');
    }
  });

  it('leaves unknown /dashboard/api/ paths to the API (404 JSON)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/api/no-such-thing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'error', code: 'not_found' });
  });

  it('explains how to build the console when there is no build (503)', async () => {
    for (const url of ['/dashboard/', '/dashboard/transactions']) {
      const res = await bare.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toBe(MISSING_BUILD_TEXT);
      expect(res.body).toContain('npm run build:console');
    }
    expect((await bare.app.inject({ method: 'GET', url: '/dashboard/assets/index-a1b2c3.js' })).statusCode).toBe(404);
  });
});

describe('security', () => {
  it('allows no inline script or style, no other origin, and no framing', () => {
    const directives = new Map(CONSOLE_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(CONSOLE_CSP).not.toMatch(/unsafe-|\*|https?:/);
  });

  it('sends the policy and the framing and sniffing headers with the page, the assets and the 503', async () => {
    const answers = [
      await t.app.inject({ method: 'GET', url: '/dashboard/' }),
      await t.app.inject({ method: 'GET', url: '/dashboard/assets/index-d4e5f6.css' }),
      await bare.app.inject({ method: 'GET', url: '/dashboard/' }),
    ];
    for (const res of answers) {
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('refuses to change anything: the pages take GET only', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/dashboard/transactions', payload: {} });
    expect(res.statusCode).toBe(405);
  });
});
