import type { FastifyInstance } from 'fastify';
import { createAntiFraudService } from './routes/create-anti-fraud-service.ts';
import { deleteAntiFraudService } from './routes/delete-anti-fraud-service.ts';
import { getAntiFraudService } from './routes/get-anti-fraud-service.ts';

export const antiFraudServiceRoutes = [createAntiFraudService, getAntiFraudService, deleteAntiFraudService];

/** Anti-fraud services (docs/risk.md, "Anti-fraud services"; decision 0139). */
export async function antiFraudServices(app: FastifyInstance): Promise<void> {
  for (const route of antiFraudServiceRoutes) app.route(route);
}
