import { defineRoute } from '../../../http/define-route.ts';
import { CheckoutSessionSchema, CreateCheckoutSessionBody } from '../checkout-sessions.schemas.ts';
import { createCheckoutSession as create } from '../checkout-sessions.service.ts';

export const createCheckoutSession = defineRoute({
  operationId: 'createCheckoutSession',
  method: 'POST',
  url: '/checkout/sessions',
  scope: 'checkout-sessions.write',
  tags: ['checkout-sessions'],
  summary: 'Create a checkout session',
  description:
    'A checkout session lives `expires_in` seconds (default CHECKOUT_SESSION_TTL_SECONDS, one hour; at most one day). ' +
    'Its id is the credential of its fields endpoint, where a browser posts card data; expired, it reads as absent and takes no card data.',
  status: 201,
  body: CreateCheckoutSessionBody,
  bodyOptional: true,
  response: CheckoutSessionSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
