import type { FastifyInstance } from 'fastify';
import { createPayout } from './routes/create-payout.ts';
import { getPayout } from './routes/get-payout.ts';
import { listPayouts } from './routes/list-payouts.ts';

/** Payouts: funds sent to a card through a payment service that makes them. */
export async function payouts(app: FastifyInstance): Promise<void> {
  for (const route of [createPayout, listPayouts, getPayout]) app.route(route);
}
