import type { FastifyInstance } from 'fastify';
import { getCardSchemeIcon } from './routes/get-card-scheme-icon.ts';
import { listCardSchemeDefinitions } from './routes/list-card-scheme-definitions.ts';

export const cardSchemeDefinitionRoutes = [listCardSchemeDefinitions, getCardSchemeIcon];

export async function cardSchemeDefinitions(app: FastifyInstance): Promise<void> {
  for (const route of cardSchemeDefinitionRoutes) app.route(route);
}
