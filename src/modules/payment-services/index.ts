import type { FastifyInstance } from 'fastify';
import { createPaymentServiceSession } from './routes/create-payment-service-session.ts';
import { createPaymentService } from './routes/create-payment-service.ts';
import { deletePaymentService } from './routes/delete-payment-service.ts';
import { getPaymentServiceFeeSchedule } from './routes/get-payment-service-fee-schedule.ts';
import { getPaymentService } from './routes/get-payment-service.ts';
import { listPaymentServices } from './routes/list-payment-services.ts';
import { updatePaymentServiceFeeSchedule } from './routes/update-payment-service-fee-schedule.ts';
import { updatePaymentService } from './routes/update-payment-service.ts';
import { verifyPaymentServiceCredentials } from './routes/verify-payment-service-credentials.ts';

/** Configured payment services (connections). The original client library swaps the ids of POST and PUT: see the route files. */
export async function paymentServices(app: FastifyInstance): Promise<void> {
  for (const route of [
    createPaymentService,
    listPaymentServices,
    verifyPaymentServiceCredentials,
    getPaymentService,
    updatePaymentService,
    deletePaymentService,
    createPaymentServiceSession,
    getPaymentServiceFeeSchedule,
    updatePaymentServiceFeeSchedule,
  ]) {
    app.route(route);
  }
}
