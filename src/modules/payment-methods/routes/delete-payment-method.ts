import { defineRoute } from '../../../http/define-route.ts';
import { PaymentMethodParams } from '../payment-methods.schemas.ts';
import { deletePaymentMethod as remove } from '../payment-methods.service.ts';

export const deletePaymentMethod = defineRoute({
  operationId: 'deletePaymentMethod',
  method: 'DELETE',
  url: '/payment-methods/:payment_method_id',
  scope: 'payment-methods.write',
  tags: ['payment-methods'],
  summary: 'Delete a stored payment method and its encrypted card data',
  status: 204,
  params: PaymentMethodParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.payment_method_id),
});
