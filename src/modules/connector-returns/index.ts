import type { FastifyInstance } from 'fastify';
import { returnFromProvider } from './routes/return-from-provider.ts';

/**
 * Where a real provider sends the buyer back after its own page (Adyen's 3DS redirect): the
 * provider's parameters complete the payment through the connector, then the buyer goes on to the
 * payment method's `redirect_url`. No token: the buyer's browser comes here.
 */
export async function connectorReturns(app: FastifyInstance): Promise<void> {
  app.route(returnFromProvider);
}
