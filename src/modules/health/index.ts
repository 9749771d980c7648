import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';

const Status = Type.Object({ status: Type.String() }, { additionalProperties: false });

/** Liveness and readiness probes; no token needed. */
export async function health(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'The process is alive',
        operationId: 'getHealth',
        security: [],
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'The database is reachable',
        operationId: 'getReadiness',
        security: [],
        response: { 200: Status, 503: Status },
      },
    },
    async (request, reply) => {
      try {
        await sql`SELECT 1`.execute(request.ctx.deps.db);
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.code(503).send({ status: 'unavailable' });
      }
    },
  );
}
