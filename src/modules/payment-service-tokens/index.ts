import type { FastifyInstance } from 'fastify';
import { createPaymentMethodPaymentServiceToken } from './routes/create-payment-method-payment-service-token.ts';
import { deletePaymentMethodPaymentServiceToken } from './routes/delete-payment-method-payment-service-token.ts';
import { listPaymentMethodPaymentServiceTokens } from './routes/list-payment-method-payment-service-tokens.ts';

export async function paymentServiceTokens(app: FastifyInstance): Promise<void> {
  for (const route of [
    createPaymentMethodPaymentServiceToken,
    listPaymentMethodPaymentServiceTokens,
    deletePaymentMethodPaymentServiceToken,
  ]) {
    app.route(route);
  }
}
