import type { FastifyInstance, FastifySchema, FastifySchemaCompiler, RouteOptions } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

/**
 * Compiling every route's request validators (Ajv) and response serializers (fast-json-stringify)
 * took about 2 s of each `buildApp` (most of a test file's set-up), and every test app compiled
 * the same schema objects again: route definitions are module constants. The test apps' onRoute
 * hook (build-test-app.ts) wraps each route's compilers so that a schema object compiled once in
 * this process is compiled by the app's own compiler (same Ajv options, formats, shared schemas)
 * only the first time; later apps get that function back. Validators and serializers keep no
 * state between calls, so sharing them between apps is what one app already does between requests.
 *
 * The key is the schema object itself plus what else the compiled function depends on: the
 * request part (validators) or status and media type (serializers), and the shared schemas the app
 * registered (by content), so an app with other shared schemas never gets another app's function.
 */

type ValidatorArgs = Parameters<FastifySchemaCompiler<FastifySchema>>[0];
type SerializerArgs = Parameters<FastifySerializerCompiler<FastifySchema>>[0];

const validators = new WeakMap<object, Map<string, ReturnType<FastifySchemaCompiler<FastifySchema>>>>();
const serializers = new WeakMap<object, Map<string, ReturnType<FastifySerializerCompiler<FastifySchema>>>>();
const sharedSchemaSets = new Map<string, number>();

/** Fastify keeps a context's options and schema controller under private symbols. */
function privateSymbol(instance: object, description: string): symbol | undefined {
  for (let o: object | null = instance; o; o = Object.getPrototypeOf(o)) {
    const found = Object.getOwnPropertySymbols(o).find((s) => s.description === description);
    if (found) return found;
  }
  return undefined;
}

interface SchemaController {
  getSerializerBuilder(): (
    schemas: Record<string, unknown>,
    options: unknown,
  ) => FastifySerializerCompiler<FastifySchema>;
}

/** The serializer compiler Fastify would build for `instance` (its shared schemas and serializerOpts). */
function defaultSerializerCompiler(instance: FastifyInstance): FastifySerializerCompiler<FastifySchema> | undefined {
  const kController = privateSymbol(instance, 'fastify.schemaController');
  const kOptions = privateSymbol(instance, 'fastify.options');
  if (!kController || !kOptions) return undefined;
  const controller = (instance as unknown as Record<symbol, SchemaController>)[kController]!;
  const options = (instance as unknown as Record<symbol, { serializerOpts?: unknown }>)[kOptions]!;
  return controller.getSerializerBuilder()(instance.getSchemas() as Record<string, unknown>, options.serializerOpts);
}

/** Fastify clones the schemas an app adds, so they are told apart by content, not identity. */
function sharedSchemasKey(instance: FastifyInstance): string {
  const text = JSON.stringify(instance.getSchemas());
  let id = sharedSchemaSets.get(text);
  if (id === undefined) sharedSchemaSets.set(text, (id = sharedSchemaSets.size));
  return String(id);
}

function memo<F>(cache: WeakMap<object, Map<string, F>>, schema: unknown, key: string, compile: () => F): F {
  if (typeof schema !== 'object' || schema === null) return compile();
  let bySchema = cache.get(schema);
  if (!bySchema) cache.set(schema, (bySchema = new Map()));
  let compiled = bySchema.get(key);
  if (!compiled) bySchema.set(key, (compiled = compile()));
  return compiled;
}

/** An onRoute hook body: route-level compilers that reuse what this process already compiled. */
export function reuseCompiledSchemas(instance: FastifyInstance, route: RouteOptions): void {
  if (!route.schema) return;
  const shared = sharedSchemasKey(instance);
  const ownValidator = route.validatorCompiler;
  const validatorOf = () => ownValidator ?? instance.validatorCompiler;
  // Without a custom validator compiler Fastify builds its default one late, with options of its own: leave it be.
  if (validatorOf()) {
    route.validatorCompiler = (args: ValidatorArgs) =>
      memo(validators, args.schema, `${args.httpPart}|${shared}`, () => validatorOf()!(args));
  }
  const ownSerializer = route.serializerCompiler;
  let serializer: FastifySerializerCompiler<FastifySchema> | undefined;
  const serializerOf = () =>
    (serializer ??= ownSerializer ?? instance.serializerCompiler ?? defaultSerializerCompiler(instance));
  if (ownSerializer || privateSymbol(instance, 'fastify.schemaController')) {
    route.serializerCompiler = (args: SerializerArgs) =>
      memo(
        serializers,
        args.schema,
        `${args.httpStatus}|${(args as { contentType?: string }).contentType ?? ''}|${shared}`,
        () => serializerOf()!(args),
      );
  }
}
