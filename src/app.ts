import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type RouteOptions } from 'fastify';
import secureJson from 'secure-json-parse';
import { isEmbed, type Deps } from './context.ts';
import { applyEmbedPins } from './http/embed.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './http/json-depth.ts';
import { AppError } from './errors/app-error.ts';
import { createAuthenticator } from './http/auth.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { errorHandler, frameworkErrorHandler } from './http/error-handler.ts';
import { createIdempotencyHook } from './http/idempotency.ts';
import { loggerOptions } from './http/logger.ts';
import { installNotFound } from './http/not-found.ts';
import { installDrain } from './http/drain.ts';
import { trackInFlight } from './http/in-flight.ts';
import { installObservability } from './http/observability.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerConsole } from './http/console.ts';
import { SHARED_SCHEMAS } from './http/schemas/common.ts';
import { lazySerializers, SERIALIZER_OPTIONS } from './http/serializers.ts';
import { buildValidatorCompiler } from './http/validation.ts';
import { MODULES } from './modules/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: import('./context.ts').RequestContext;
    rawBody?: string;
  }
}

export interface BuildAppOptions {
  /** Where log lines go (tests capture them); default stdout. */
  logStream?: import('pino').DestinationStream;
  /** Plugins registered after the built-in modules (embedding applications, tests). */
  plugins?: Array<(app: FastifyInstance) => Promise<void>>;
  /** Called for every route registered (tests list them). */
  onRoute?: (route: RouteOptions) => void;
  /** Where the built dashboard console is (default dist/console; tests give another). */
  consoleDir?: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP application. Never listens: `server.ts` does, tests use `inject`. */
export async function buildApp(deps: Deps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(config, options.logStream),
    // One access line per request is written by the onResponse hook of http/observability.ts.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    // request.ip follows X-Forwarded-For only through the proxies TRUST_PROXY names (docs/security.md).
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    return503OnClosing: true,
    frameworkErrors: frameworkErrorHandler(config.bodyLimit),
    // Slow and abusive clients (docs/reliability.md): every connection is bounded in time and size.
    connectionTimeout: config.http.connectionTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.http.maxRequestsPerSocket,
    // Node checks the header and request timeouts every connectionsCheckingInterval (30 s by
    // default, which would let a slow client hold its socket that much longer): every second.
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      maxHeaderSize: config.http.maxHeaderBytes,
      connectionsCheckingInterval: 1_000,
    },
    clientErrorHandler: clientErrorHandler(config.http),
    // Response serializers are compiled on each route's first answer (http/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    serializerOpts: SERIALIZER_OPTIONS,
  });

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.setValidatorCompiler(buildValidatorCompiler(SHARED_SCHEMAS));
  app.setErrorHandler(errorHandler(config.bodyLimit));
  installNotFound(app);
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  trackInFlight(app);
  installDrain(app);
  installObservability(app, deps);

  // JSON only: any other media type is refused with a 400 that says what to send.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    // PostgreSQL text cannot hold NUL: refuse it here with a clear message rather than fail later.
    if (text.includes('\\u0000')) {
      return done(
        new AppError('bad_request', 'Strings in the request body may not contain the NUL character (\\u0000)'),
        undefined,
      );
    }
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(
        new AppError(
          'bad_request',
          `The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep; send a flatter JSON document`,
        ),
        undefined,
      );
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      // The parser's message quotes the body, which may hold card data: only the position is kept.
      const position = /position (\d+)/.exec((error as Error).message)?.[1];
      done(
        new AppError(
          'bad_request',
          `Malformed JSON in request body${position ? ` (at position ${position})` : ''}; send a valid JSON document`,
        ),
        undefined,
      );
    }
  });

  app.decorateRequest('ctx', null as never);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const config = request.routeOptions.config;
    request.ctx = {
      deps,
      requestId: request.id,
      log: request.log,
      principal: null,
      merchantAccountId: 'default',
      operationId: config.operationId ?? 'unknown',
      successStatus: config.successStatus ?? 200,
      idempotency: null,
    };
  });
  const authenticate = createAuthenticator(deps);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    if ((config.scope !== undefined && config.scope !== null) || (config.credential ?? 'bearer') !== 'bearer')
      await authenticate(request);
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (request.routeOptions.config.embed && isEmbed(request.ctx.principal))
      applyEmbedPins(request.ctx.principal!, request.body);
  });
  const idempotency = createIdempotencyHook(deps);
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.idempotent) return idempotency(request, reply);
  });
  await registerOpenApi(app, config);
  await registerConsole(app, options.consoleDir);
  for (const register of [...MODULES, ...(options.plugins ?? [])]) await app.register(register);
  await app.ready();
  return app;
}
