import { defineRoute } from '../../../http/define-route.ts';
import { CheckoutSessionFieldsBody, CheckoutSessionFieldsParams } from '../checkout-sessions.schemas.ts';
import { setCheckoutSessionFields } from '../checkout-sessions.service.ts';

/**
 * Called by the browser: the session id in the path is the credential (no bearer), rate limited per
 * session. Clients use POST and PUT alike; both replace the card data.
 */
export const checkoutSessionFieldsRoute = (method: 'POST' | 'PUT', operationId: string) =>
  defineRoute({
    operationId,
    method,
    url: '/checkout/sessions/:session_id/fields',
    scope: null,
    credential: 'checkout-session',
    enumerationLimited: true,
    idempotent: false,
    tags: ['checkout-sessions'],
    summary: 'Set the card data of a checkout session',
    description:
      'Authenticated by the session id alone (401 when unknown, malformed or expired); 50 calls a minute per session. ' +
      'Takes a card (number, expiration_date, security_code) or, with a fresh security code, a stored card of the buyer the session is for (`method: id`; any other stored card is 404, as an unknown id). ' +
      'The card is validated like a stored card, encrypted and bound to the session, and purged when the session expires.',
    status: 204,
    params: CheckoutSessionFieldsParams,
    body: CheckoutSessionFieldsBody,
    response: null,
    handler: ({ ctx, params, body }) => setCheckoutSessionFields(ctx, params.session_id, body),
  });

export const createCheckoutSessionFields = checkoutSessionFieldsRoute('POST', 'createCheckoutSessionFields');
