import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  responses: Record<string, unknown>;
  'x-required-scopes'?: string[];
}

describe('happy', () => {
  it('serves an OpenAPI 3 document generated from the routes', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json', token: null });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.servers.map((s: { description: string }) => s.description)).toEqual(expect.arrayContaining(['sandbox', 'production']));
    expect(doc.components.schemas.Error).toBeDefined();
    expect(doc.components.schemas.HTTPValidationError).toBeDefined();
  });

  it('lists every registered route with an operationId, tags, a scope and a 2xx response', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', token: null })).json();
    const routes: Array<{ method: string; url: string; public: boolean; config: { credential?: string } }> = [];
    for (const route of t.registeredRoutes) {
      if (route.url.startsWith('/docs') || route.url === '/openapi.json' || route.method === 'HEAD') continue;
      routes.push(route);
    }
    expect(routes.length).toBeGreaterThan(3);
    for (const route of routes) {
      const path = route.url.replace(/:([a-z_]+)/g, '{$1}');
      const operation = doc.paths[path]?.[route.method.toLowerCase()] as Operation | undefined;
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
      expect(operation!.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation!.tags!.length).toBeGreaterThan(0);
      expect(Object.keys(operation!.responses).some((status) => /^2\d\d$/.test(status))).toBe(true);
      if (route.public) {
        expect(operation!.security).toEqual([]);
      } else {
        // A checkout session or transaction session route takes that credential instead of a bearer token.
        if ((route.config.credential ?? 'bearer') !== 'bearer') expect(operation!.security).toEqual([]);
        else expect(operation!['x-required-scopes']![0]).toMatch(/^[a-z*-]+(\.[a-z-]+)*\.(read|write)$/);
        for (const status of ['400', '401', '403', '404', '405', '409', '422', '425', '429', '500', '502', '504']) {
          expect(operation!.responses[status], `${route.method} ${route.url} ${status}`).toBeDefined();
        }
      }
    }
    expect(doc['x-scopes']['merchant-accounts.read']).toEqual(expect.arrayContaining(['listMerchantAccounts', 'getMerchantAccount']));
  });

  it('renders the reference for people at /docs', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/', token: null });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
