import type { FastifyInstance } from 'fastify';
import { listAuditLogs } from './routes/list-audit-logs.ts';

export async function auditLogs(app: FastifyInstance): Promise<void> {
  app.route(listAuditLogs);
}
