import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import { buildApp } from '../app.ts';
import { lazySerializers, SERIALIZER_OPTIONS } from './serializers.ts';

describe('lazySerializers', () => {
  it('compiles a route’s serializer on its first answer, once, with the factory’s own arguments', () => {
    const compiled: string[] = [];
    const factoryArgs: unknown[] = [];
    const eager: SerializerFactory = (schemas, options) => {
      factoryArgs.push(schemas, options);
      return (route) => {
        compiled.push(`${route.method} ${route.url} ${route.httpStatus}`);
        return (doc) => `${route.httpStatus}:${JSON.stringify(doc)}`;
      };
    };
    const compiler = lazySerializers(eager)({ shared: true }, SERIALIZER_OPTIONS);
    expect(factoryArgs).toEqual([{ shared: true }, SERIALIZER_OPTIONS]);
    const ok = compiler({ method: 'GET', url: '/things', httpStatus: '200', schema: {} });
    const missing = compiler({ method: 'GET', url: '/things', httpStatus: '404', schema: {} });
    expect(compiled).toEqual([]);
    expect(ok({ a: 1 })).toBe('200:{"a":1}');
    expect(ok({ a: 2 })).toBe('200:{"a":2}');
    expect(compiled).toEqual(['GET /things 200']);
    expect(missing({ b: 1 })).toBe('404:{"b":1}');
    expect(compiled).toEqual(['GET /things 200', 'GET /things 404']);
  });

  it('compiles a schema object shared by several routes and statuses once', () => {
    let compilations = 0;
    const eager: SerializerFactory = () => () => {
      compilations++;
      return (doc) => JSON.stringify(doc);
    };
    const compiler = lazySerializers(eager)({}, SERIALIZER_OPTIONS);
    const error = { type: 'object' };
    const a = compiler({ method: 'GET', url: '/a', httpStatus: '404', schema: error });
    const b = compiler({ method: 'POST', url: '/b', httpStatus: '409', schema: error });
    const c = compiler({ method: 'GET', url: '/a', httpStatus: '200', schema: { type: 'object' } });
    expect([a({ x: 1 }), b({ y: 2 }), c({ z: 3 })]).toEqual(['{"x":1}', '{"y":2}', '{"z":3}']);
    expect(compilations).toBe(2);
    // Another app (another factory call) compiles its own: its shared schemas may differ.
    lazySerializers(eager)({}, SERIALIZER_OPTIONS)({ method: 'GET', url: '/a', httpStatus: '404', schema: error })({});
    expect(compilations).toBe(3);
  });

  it('writes what Fastify’s own serializer writes, dropping what the schema does not name', () => {
    const schema = { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'integer' }, currency: { type: 'string', format: 'iso-4217' } } };
    const route = { method: 'GET', url: '/x', httpStatus: '200', schema };
    const doc = { id: 'a"b', amount: 12, currency: 'USD', number: '4111111111111111' };
    const lazy = lazySerializers()({}, SERIALIZER_OPTIONS)(route);
    const eager = SerializerSelector()({}, SERIALIZER_OPTIONS)(route);
    expect(lazy(doc)).toBe(eager(doc));
    expect(JSON.parse(lazy(doc))).toEqual({ id: 'a"b', amount: 12, currency: 'USD' });
  });
});

/**
 * A start no longer compiles the response serializers, so a schema fast-json-stringify cannot
 * compile would only fail on that route's first answer with that status. This compiles every one
 * of them as a start used to: Fastify's own factory, the app's shared schemas, the same options.
 */
describe('every response schema of every route', () => {
  const routes: Array<{ instance: FastifyInstance; route: RouteOptions }> = [];
  let dispose: (() => Promise<void>) | undefined;
  let app: FastifyInstance | undefined;
  afterAll(async () => {
    await app?.close();
    await dispose?.();
  });

  it('compiles', async () => {
    const runtime = await openTestRuntime();
    dispose = runtime.dispose;
    app = await buildApp(runtime.runtime.deps, {
      onRoute(this: FastifyInstance, route) {
        routes.push({ instance: this, route });
      },
    });
    await app.ready();
    const compilers = new Map<FastifyInstance, ReturnType<SerializerFactory>>();
    const done = new Set<unknown>();
    let count = 0;
    let pairs = 0;
    for (const { instance, route } of routes) {
      const responses = (route.schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
      let compile = compilers.get(instance);
      if (!compile) compilers.set(instance, (compile = SerializerSelector()(instance.getSchemas(), SERIALIZER_OPTIONS)));
      for (const [httpStatus, response] of Object.entries(responses)) {
        const content = (response as { content?: Record<string, { schema: unknown }> }).content;
        const schemas = content ? Object.values(content).map((c) => c.schema) : [response];
        for (const schema of schemas) {
          pairs += [route.method].flat().length;
          if (done.has(schema)) continue;
          done.add(schema);
          for (const method of [route.method].flat()) {
            expect(() => compile({ method, url: route.url, httpStatus, schema }), `${method} ${route.url} ${httpStatus}`).not.toThrow();
          }
          count++;
        }
      }
    }
    // Routes share their error schemas: about 130 distinct schemas for about 3,000 route, method and
    // status serializers. Far fewer would mean routes went missing.
    expect(count).toBeGreaterThan(100);
    expect(pairs).toBeGreaterThan(1_000);
  }, 120_000);
});
