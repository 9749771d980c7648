import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../context.ts';
import {
  newRequestTiming,
  runWithTiming,
  serverTimingHeader,
  type RequestTiming,
} from '../observability/request-timing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    timing: RequestTiming;
  }
}

/** The operationId of a request's route, or `unmatched` for a path no route serves (bounded labels). */
export function operationOf(request: FastifyRequest): string {
  const options = request.routeOptions;
  return (
    options.config?.operationId ?? (options.schema as { operationId?: string } | undefined)?.operationId ?? 'unmatched'
  );
}

/**
 * Per-request timing (Server-Timing header), request metrics and the access log line. Call before
 * any other onRequest hook: the timing store must cover authentication's queries too.
 */
export function installObservability(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('timing', null as never);
  // `run` wraps the rest of the hook chain, so every query and connector call of the request adds
  // to its timing. The body is read from socket events, outside that chain: preValidation enters
  // the same store again for the handler and what follows.
  app.addHook('onRequest', (request, _reply, done) => {
    request.timing = newRequestTiming();
    runWithTiming(request.timing, done);
  });
  app.addHook('preValidation', (request, _reply, done) => runWithTiming(request.timing, done));
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.timing) reply.header('server-timing', serverTimingHeader(request.timing, reply.elapsedTime));
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const operationId = operationOf(request);
    deps.metrics.request(operationId, reply.statusCode, reply.elapsedTime / 1000);
    const timing = request.timing;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        operationId,
        status: reply.statusCode,
        durationMs: round(reply.elapsedTime),
        dbMs: timing ? round(timing.dbMs) : null,
        ...(timing && timing.connectorCalls > 0 ? { connectorMs: round(timing.connectorMs) } : {}),
        merchantAccountId: request.ctx?.principal ? request.ctx.merchantAccountId : undefined,
      },
      'request completed',
    );
  });
}

const round = (ms: number) => Math.round(ms * 100) / 100;
