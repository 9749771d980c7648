import { defineRoute } from '../../../http/define-route.ts';
import { CheckoutSessionParams } from '../checkout-sessions.schemas.ts';
import { deleteCheckoutSession as remove } from '../checkout-sessions.service.ts';

export const deleteCheckoutSession = defineRoute({
  operationId: 'deleteCheckoutSession',
  method: 'DELETE',
  url: '/checkout/sessions/:session_id',
  scope: 'checkout-sessions.write',
  tags: ['checkout-sessions'],
  summary: 'Delete a checkout session and its card data',
  status: 204,
  params: CheckoutSessionParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.session_id),
});
