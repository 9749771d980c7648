import type { FastifyInstance } from 'fastify';
import { listRoles } from './routes/list-roles.ts';

export const roleRoutes = [listRoles];

export async function roles(app: FastifyInstance): Promise<void> {
  for (const route of roleRoutes) app.route(route);
}
