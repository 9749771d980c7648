import type { FastifyInstance } from 'fastify';
import { listPaymentOptions } from './routes/list-payment-options.ts';

export async function paymentOptions(app: FastifyInstance): Promise<void> {
  app.route(listPaymentOptions);
}
