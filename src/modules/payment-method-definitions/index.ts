import type { FastifyInstance } from 'fastify';
import { getPaymentMethodDefinitionIcon } from './routes/get-payment-method-definition-icon.ts';
import { listPaymentMethodDefinitions } from './routes/list-payment-method-definitions.ts';

export async function paymentMethodDefinitions(app: FastifyInstance): Promise<void> {
  for (const route of [listPaymentMethodDefinitions, getPaymentMethodDefinitionIcon]) app.route(route);
}
