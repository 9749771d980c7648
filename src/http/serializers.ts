import {
  SerializerSelector,
  type Options,
  type SerializerCompiler,
  type SerializerFactory,
} from '@fastify/fast-json-stringify-compiler';

/**
 * The response serializers' options: the serializer compiles its own Ajv for unions, so it must
 * know our custom formats.
 */
export const SERIALIZER_OPTIONS: Options = { ajv: { formats: { 'iso-4217': true, 'iso-3166-alpha-2': true } } };

/**
 * Response serializers compiled on a route's first answer with that status, not at start-up.
 *
 * Fastify compiles one fast-json-stringify function per route, status code and media type when the
 * server starts, each with an Ajv of its own for the unions in it. This API has about 3,000 of
 * them, nearly all for error statuses a route rarely answers with: they took about 3 s of every
 * start and about half the JavaScript heap of a server just started (139 to 191 MB in use 3 s
 * after a start on PostgreSQL, 65 to 92 MB with this), which every full garbage collection of a
 * running server then marks again.
 * Compiled lazily, a server holds only the serializers of what it answered. The first answer of
 * each route and status pays its compilation once (milliseconds; tens for the transaction's
 * schema). The functions and their output are those Fastify would have built: the same compiler,
 * options and shared schemas (`build`, Fastify's default factory, unless a test passes another).
 * That every schema compiles is checked by a test (route-schemas.test.ts), as a start once did.
 */
export function lazySerializers(build: SerializerFactory = SerializerSelector()): SerializerFactory {
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    // Routes share schema objects (the error bodies above all: about 130 distinct schemas for those
    // 3,000 serializers), and a serializer depends only on its schema, the shared schemas and the
    // options: one compilation per schema object serves every route and status using it.
    const bySchema = new WeakMap<object, (doc: unknown) => string>();
    const lazy: SerializerCompiler = (route) => {
      let serializer: ((doc: unknown) => string) | undefined;
      const first = () => {
        const { schema } = route;
        if (typeof schema !== 'object' || schema === null) return compile(route);
        let found = bySchema.get(schema);
        if (!found) bySchema.set(schema, (found = compile(route)));
        return found;
      };
      return (doc) => (serializer ??= first())(doc);
    };
    return lazy;
  };
}
