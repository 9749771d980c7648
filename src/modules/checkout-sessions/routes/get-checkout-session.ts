import { defineRoute } from '../../../http/define-route.ts';
import { CheckoutSessionParams, CheckoutSessionSchema } from '../checkout-sessions.schemas.ts';
import { getCheckoutSession as get } from '../checkout-sessions.service.ts';

export const getCheckoutSession = defineRoute({
  operationId: 'getCheckoutSession',
  method: 'GET',
  url: '/checkout/sessions/:session_id',
  scope: 'checkout-sessions.read',
  tags: ['checkout-sessions'],
  summary: 'Read a checkout session',
  description: 'An expired session is 404. Card data shows only as scheme, BIN, last 4 digits, expiry and fingerprint.',
  status: 200,
  params: CheckoutSessionParams,
  response: CheckoutSessionSchema,
  handler: ({ ctx, params }) => get(ctx, params.session_id),
});
