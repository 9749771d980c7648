import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.ts';

const ErrorRef = Type.Unsafe<unknown>({ $ref: 'Error#' });

/**
 * `GET /metrics`: Prometheus text format, behind its own bearer token (`METRICS_TOKEN`), not an
 * API key pair: a scraper holds one static secret and no merchant scope (docs/ops/metrics.md).
 */
export async function metrics(app: FastifyInstance): Promise<void> {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['health'],
        summary: 'Prometheus metrics of this process',
        description:
          'Prometheus text exposition format. Needs `Authorization: Bearer <METRICS_TOKEN>` (not an API token); 404 while `METRICS_TOKEN` is not set.',
        operationId: 'getMetrics',
        security: [],
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Prometheus text format 0.0.4' }), 401: ErrorRef, 404: ErrorRef },
      },
    },
    async (request, reply) => {
      checkMetricsToken(request);
      const { contentType, body } = await request.ctx.deps.metrics.render();
      return reply.type(contentType).send(body);
    },
  );
}

function checkMetricsToken(request: FastifyRequest): void {
  const expected = request.ctx.deps.config.metricsToken;
  if (expected === null)
    throw new AppError('not_found', 'Metrics are off: set METRICS_TOKEN on the server to serve them at GET /metrics');
  const header = request.headers.authorization ?? '';
  const given = /^Bearer (.+)$/i.exec(header)?.[1] ?? '';
  // Digests of equal length, compared in constant time: the comparison tells nothing about the token.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  if (!timingSafeEqual(digest(given), digest(expected))) {
    throw new AppError(
      'unauthorized',
      'GET /metrics needs the header Authorization: Bearer <METRICS_TOKEN> (the metrics token, not an API token)',
    );
  }
}
