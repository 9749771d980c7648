import type { FastifyInstance } from 'fastify';
import { createPaymentServiceDefinitionSession } from './routes/create-payment-service-definition-session.ts';
import { getPaymentServiceDefinition } from './routes/get-payment-service-definition.ts';
import { listPaymentServiceDefinitions } from './routes/list-payment-service-definitions.ts';

/** The connector catalogue (instance-wide, from the connector registry; no table). */
export async function paymentServiceDefinitions(app: FastifyInstance): Promise<void> {
  for (const route of [
    listPaymentServiceDefinitions,
    getPaymentServiceDefinition,
    createPaymentServiceDefinitionSession,
  ])
    app.route(route);
}
