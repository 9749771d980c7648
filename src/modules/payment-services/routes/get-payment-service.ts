import { defineRoute } from '../../../http/define-route.ts';
import { PaymentServiceParams, PaymentServiceSchema } from '../payment-services.schemas.ts';
import { getPaymentService as get } from '../payment-services.service.ts';

export const getPaymentService = defineRoute({
  operationId: 'getPaymentService',
  method: 'GET',
  url: '/payment-services/:payment_service_id',
  scope: 'payment-services.read',
  tags: ['payment-services'],
  summary: 'Read a configured payment service',
  description: 'Secret field values are left out. A deleted service is still answered, with `is_deleted: true`.',
  status: 200,
  params: PaymentServiceParams,
  response: PaymentServiceSchema,
  handler: ({ ctx, params }) => get(ctx, params.payment_service_id),
});
