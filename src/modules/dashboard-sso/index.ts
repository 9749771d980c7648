import type { FastifyInstance } from 'fastify';
import { getSsoOptions } from './routes/get-sso-options.ts';
import { registerSsoBrowserRoutes } from './routes/browser-routes.ts';

/** Single sign-on to the dashboard with OpenID Connect (docs/dashboard.md, "Single sign-on"). */
export const dashboardSsoRoutes = [getSsoOptions];

export async function dashboardSso(app: FastifyInstance): Promise<void> {
  for (const route of dashboardSsoRoutes) app.route(route);
  registerSsoBrowserRoutes(app);
}
