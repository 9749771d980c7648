import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import { describe, expect, it } from 'vitest';
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
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        amount: { type: 'integer' },
        currency: { type: 'string', format: 'iso-4217' },
      },
    };
    const route = { method: 'GET', url: '/x', httpStatus: '200', schema };
    const doc = { id: 'a"b', amount: 12, currency: 'USD', number: '4111111111111111' };
    const lazy = lazySerializers()({}, SERIALIZER_OPTIONS)(route);
    const eager = SerializerSelector()({}, SERIALIZER_OPTIONS)(route);
    expect(lazy(doc)).toBe(eager(doc));
    expect(JSON.parse(lazy(doc))).toEqual({ id: 'a"b', amount: 12, currency: 'USD' });
  });
});
