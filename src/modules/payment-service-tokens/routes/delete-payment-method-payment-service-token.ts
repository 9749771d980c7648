import { defineRoute } from '../../../http/define-route.ts';
import { PaymentServiceTokenParams } from '../payment-service-tokens.schemas.ts';
import { deletePaymentServiceToken } from '../payment-service-tokens.service.ts';

export const deletePaymentMethodPaymentServiceToken = defineRoute({
  operationId: 'deletePaymentMethodPaymentServiceToken',
  method: 'DELETE',
  url: '/payment-methods/:payment_method_id/payment-service-tokens/:payment_service_token_id',
  scope: 'payment-methods.write',
  tags: ['payment-service-tokens'],
  summary: 'Delete a gateway token',
  description:
    'Removes the token and destroys its stored value. The payment service is not told: the token may remain valid there.',
  status: 204,
  params: PaymentServiceTokenParams,
  response: null,
  handler: ({ ctx, params }) =>
    deletePaymentServiceToken(ctx, params.payment_method_id, params.payment_service_token_id),
});
