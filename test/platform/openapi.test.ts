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
    // Only this server, at its public URL: no invented host names. `svc trigger` reads the environment from the description.
    expect(doc.servers).toEqual([{ url: t.config.publicUrl, description: `this server (${t.config.environment})` }]);
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect(doc.components.schemas.Error).toBeDefined();
    expect(doc.components.schemas.HTTPValidationError).toBeDefined();
  });

  it('lists every registered route with an operationId, tags, a scope and a 2xx response', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', token: null })).json();
    const routes: Array<{ method: string; url: string; public: boolean; config: { credential?: string } }> = [];
    for (const route of t.registeredRoutes) {
      // The reference and the console's pages are pages, not operations (schema.hide).
      if (
        route.url.startsWith('/docs') ||
        route.url === '/openapi.json' ||
        route.method === 'HEAD' ||
        (route.schema as { hide?: boolean } | undefined)?.hide
      )
        continue;
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
    expect(doc['x-scopes']['merchant-accounts.read']).toEqual(
      expect.arrayContaining(['listMerchantAccounts', 'getMerchantAccount']),
    );
  });

  it('makes no parameter with a default required: every list takes its limit as optional, 20 when absent', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', token: null })).json();
    const limits: Array<{ required?: boolean; schema: { default?: number } }> = [];
    for (const methods of Object.values(doc.paths) as Array<
      Record<
        string,
        { parameters?: Array<{ name: string; in: string; required?: boolean; schema: { default?: unknown } }> }
      >
    >) {
      for (const operation of Object.values(methods)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.schema?.default !== undefined) expect(parameter.required ?? false, parameter.name).toBe(false);
          if (parameter.name === 'limit' && parameter.in === 'query') limits.push(parameter as never);
        }
      }
    }
    expect(limits.length).toBeGreaterThanOrEqual(24);
    expect(limits.filter((limit) => limit.required)).toEqual([]);
    // Validation still fills the default in for the handler.
    for (const url of ['/transactions', '/buyers', '/payment-services', '/payment-links', '/reports']) {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json().limit, url).toBe(20);
    }
  });

  it('describes every response in its own words, the shared error answers once under components', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', token: null })).json();
    let responses = 0;
    for (const methods of Object.values(doc.paths) as Array<
      Record<string, { responses: Record<string, { description?: string; $ref?: string }> }>
    >) {
      for (const operation of Object.values(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const resolved = response.$ref
            ? doc.components.responses[response.$ref.replace('#/components/responses/', '')]
            : response;
          expect(resolved?.description, status).toBeTruthy();
          expect(resolved.description).not.toBe('Default Response');
          responses++;
        }
      }
    }
    expect(responses).toBeGreaterThan(2000);
    expect(doc.paths['/buyers'].get.responses['200'].description).toBe('OK');
    expect(doc.paths['/buyers'].post.responses['201'].description).toBe('Created');
    expect(doc.paths['/buyers/{buyer_id}'].delete.responses['204'].description).toBe('No Content');
    expect(doc.paths['/buyers'].get.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(doc.components.responses.NotFound).toEqual({
      description: 'Not Found: the resource does not exist in this merchant account (`Error`, code `not_found`)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    expect(doc.components.responses.ValidationFailed.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/HTTPValidationError',
    });
  });

  it("names the payment-service operations for what they do, and the original client library's swapped names in their descriptions", async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', token: null })).json();
    const create = doc.paths['/payment-services'].post;
    const update = doc.paths['/payment-services/{payment_service_id}'].put;
    expect(create.operationId).toBe('createPaymentService');
    expect(Object.keys(create.responses)).toContain('201');
    expect(create.description).toContain('name this operation `update_payment_service` (`updatePaymentService`)');
    expect(update.operationId).toBe('updatePaymentService');
    expect(update.description).toContain('name this operation `create_payment_service` (`createPaymentService`)');
  });

  it('renders the reference for people at /docs', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/', token: null });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('<title>svc API reference</title>');
  });
});
