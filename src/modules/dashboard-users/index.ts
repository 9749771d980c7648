import type { FastifyInstance } from 'fastify';
import { createUser } from './routes/create-user.ts';
import { createUserSetupLink } from './routes/create-user-setup-link.ts';
import { getUser } from './routes/get-user.ts';
import { listUsers } from './routes/list-users.ts';
import { updateUser } from './routes/update-user.ts';

/** User management of the public API (our own routes): invite, list, change, reset. */
export const userRoutes = [listUsers, getUser, createUser, updateUser, createUserSetupLink];

export async function users(app: FastifyInstance): Promise<void> {
  for (const route of userRoutes) app.route(route);
}
