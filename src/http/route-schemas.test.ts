import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import { buildApp } from '../app.ts';
import { SHARED_SCHEMAS } from './schemas/common.ts';
import { SERIALIZER_OPTIONS } from './serializers.ts';
import { buildValidatorCompiler } from './validation.ts';

/**
 * A start no longer compiles the routes' request validators and response serializers (both are
 * compiled on first use: validation.ts, serializers.ts), so a schema Ajv or fast-json-stringify
 * cannot compile would only fail on the first request that needs it. This compiles every one of
 * them, as a start used to.
 */
describe('every schema of every route', () => {
  const routes: Array<{ instance: FastifyInstance; route: RouteOptions }> = [];
  let dispose: (() => Promise<void>) | undefined;
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    const runtime = await openTestRuntime();
    dispose = runtime.dispose;
    app = await buildApp(runtime.runtime.deps, {
      onRoute(this: FastifyInstance, route) {
        routes.push({ instance: this, route });
      },
    });
    await app.ready();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await dispose?.();
  });

  it('request validators compile, with the app’s Ajv options and shared schemas', () => {
    const compile = buildValidatorCompiler(SHARED_SCHEMAS);
    let count = 0;
    for (const { route } of routes) {
      const schema = (route.schema ?? {}) as Record<string, unknown>;
      for (const httpPart of ['body', 'querystring', 'params', 'headers']) {
        const part = schema[httpPart];
        if (!part) continue;
        const validate = compile({ schema: part, httpPart, method: [route.method].flat()[0]!, url: route.url }) as (
          data: unknown,
        ) => boolean;
        // The first call compiles.
        expect(() => validate(undefined), `${route.url} ${httpPart}`).not.toThrow();
        count++;
      }
    }
    expect(count).toBeGreaterThan(300);
  });

  it('response serializers compile with Fastify’s own factory, the app’s shared schemas and options', () => {
    const compilers = new Map<FastifyInstance, ReturnType<SerializerFactory>>();
    const done = new Set<unknown>();
    let count = 0;
    let pairs = 0;
    for (const { instance, route } of routes) {
      const responses = (route.schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
      let compile = compilers.get(instance);
      if (!compile)
        compilers.set(instance, (compile = SerializerSelector()(instance.getSchemas(), SERIALIZER_OPTIONS)));
      for (const [httpStatus, response] of Object.entries(responses)) {
        const content = (response as { content?: Record<string, { schema: unknown }> }).content;
        const schemas = content ? Object.values(content).map((c) => c.schema) : [response];
        for (const schema of schemas) {
          pairs += [route.method].flat().length;
          if (done.has(schema)) continue;
          done.add(schema);
          for (const method of [route.method].flat()) {
            expect(
              () => compile({ method, url: route.url, httpStatus, schema }),
              `${method} ${route.url} ${httpStatus}`,
            ).not.toThrow();
          }
          count++;
        }
      }
    }
    // Routes share their error schemas: about 130 distinct schemas for about 3,000 route, method and
    // status serializers. Far fewer would mean routes went missing.
    expect(count).toBeGreaterThan(100);
    expect(pairs).toBeGreaterThan(1_000);
  });
});
