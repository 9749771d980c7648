import type { FastifyInstance } from 'fastify';
import { getCardDetails } from './routes/get-card-details.ts';

export const cardDetailRoutes = [getCardDetails];

export async function cardDetails(app: FastifyInstance): Promise<void> {
  for (const route of cardDetailRoutes) app.route(route);
}
