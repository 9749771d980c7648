import { defineRoute } from '../../../http/define-route.ts';
import { PaymentMethodParams, PaymentMethodSchema } from '../payment-methods.schemas.ts';
import { getPaymentMethod as get } from '../payment-methods.service.ts';

export const getPaymentMethod = defineRoute({
  operationId: 'getPaymentMethod',
  method: 'GET',
  url: '/payment-methods/:payment_method_id',
  scope: 'payment-methods.read',
  tags: ['payment-methods'],
  summary: 'Read a stored payment method',
  status: 200,
  params: PaymentMethodParams,
  response: PaymentMethodSchema,
  handler: ({ ctx, params }) => get(ctx, params.payment_method_id),
});
