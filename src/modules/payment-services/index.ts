import type { FastifyInstance } from 'fastify';
import { createPaymentServiceSession } from './routes/create-payment-service-session.ts';
import { createPaymentService } from './routes/create-payment-service.ts';
import { deletePaymentService } from './routes/delete-payment-service.ts';
import { getPaymentService } from './routes/get-payment-service.ts';
import { listPaymentServices } from './routes/list-payment-services.ts';
import { updatePaymentService } from './routes/update-payment-service.ts';
import { verifyPaymentServiceCredentials } from './routes/verify-payment-service-credentials.ts';

/** Configured payment services (connections). The operationIds of POST and PUT are the library's, swapped: see the route files. */
export async function paymentServices(app: FastifyInstance): Promise<void> {
  for (const route of [
    updatePaymentService,
    listPaymentServices,
    verifyPaymentServiceCredentials,
    getPaymentService,
    createPaymentService,
    deletePaymentService,
    createPaymentServiceSession,
  ]) {
    app.route(route);
  }
}
