import { defineRoute } from '../../../http/define-route.ts';
import { PaymentServiceParams } from '../payment-services.schemas.ts';
import { deletePaymentService as remove } from '../payment-services.service.ts';

export const deletePaymentService = defineRoute({
  operationId: 'deletePaymentService',
  method: 'DELETE',
  url: '/payment-services/:payment_service_id',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Delete a payment service configuration',
  description:
    'Soft delete: the service is no longer routed to or changeable, its secret values are destroyed, and it stays readable with `is_deleted: true`.',
  status: 204,
  params: PaymentServiceParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.payment_service_id),
});
