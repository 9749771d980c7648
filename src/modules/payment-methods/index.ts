import type { FastifyInstance } from 'fastify';
import { createPaymentMethod } from './routes/create-payment-method.ts';
import { deletePaymentMethod } from './routes/delete-payment-method.ts';
import { getPaymentMethod } from './routes/get-payment-method.ts';
import { listBuyerPaymentMethods } from './routes/list-buyer-payment-methods.ts';
import { listPaymentMethods } from './routes/list-payment-methods.ts';
import { updatePaymentMethod } from './routes/update-payment-method.ts';

export async function paymentMethods(app: FastifyInstance): Promise<void> {
  for (const route of [
    createPaymentMethod,
    listPaymentMethods,
    getPaymentMethod,
    updatePaymentMethod,
    deletePaymentMethod,
    listBuyerPaymentMethods,
  ])
    app.route(route);
}
