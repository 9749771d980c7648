import { defineRoute } from '../../../http/define-route.ts';
import {
  CheckoutSessionParams,
  CheckoutSessionSchema,
  UpdateCheckoutSessionBody,
} from '../checkout-sessions.schemas.ts';
import { updateCheckoutSession as update } from '../checkout-sessions.service.ts';

export const updateCheckoutSession = defineRoute({
  operationId: 'updateCheckoutSession',
  method: 'PUT',
  url: '/checkout/sessions/:session_id',
  scope: 'checkout-sessions.write',
  tags: ['checkout-sessions'],
  summary: 'Update a checkout session',
  description:
    'Changes only the fields sent (null clears one); `expires_in` restarts the lifetime from now. An expired session is 404.',
  status: 200,
  params: CheckoutSessionParams,
  body: UpdateCheckoutSessionBody,
  response: CheckoutSessionSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.session_id, body),
});
