import { defineRoute } from '../../../http/define-route.ts';
import { PaymentMethodParams, PaymentMethodSchema, UpdatePaymentMethodBody } from '../payment-methods.schemas.ts';
import { updatePaymentMethod as update } from '../payment-methods.service.ts';

export const updatePaymentMethod = defineRoute({
  operationId: 'updatePaymentMethod',
  method: 'PUT',
  url: '/payment-methods/:payment_method_id',
  scope: 'payment-methods.write',
  tags: ['payment-methods'],
  summary: 'Update the expiry, scheme transaction id or transaction link id of a stored payment method',
  status: 200,
  params: PaymentMethodParams,
  body: UpdatePaymentMethodBody,
  response: PaymentMethodSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.payment_method_id, body),
});
