import { defineRoute } from '../../../http/define-route.ts';
import { CheckoutSessionAcquirerSchema, CheckoutSessionFieldsParams } from '../checkout-sessions.schemas.ts';
import { getCheckoutSessionAcquirer as run } from '../checkout-sessions.service.ts';

/** Called by the browser's 3DS SDK: the session id in the path is the credential (no bearer), as for its fields. */
export const getCheckoutSessionAcquirer = defineRoute({
  operationId: 'getCheckoutSessionAcquirer',
  method: 'GET',
  url: '/checkout/sessions/:session_id/acquirer',
  scope: null,
  credential: 'checkout-session',
  enumerationLimited: true,
  tags: ['checkout-sessions'],
  summary: 'The acquirer data a client-side 3DS SDK needs for a checkout session',
  description:
    "Authenticated by the session id alone (401 when unknown, malformed or expired); counts against the session's 50 calls a minute. " +
    "Answers the merchant account's 3DS configuration for the scheme of the session's card and the session's currency (else the scheme's configuration for every currency); " +
    '404 while the session holds no card, or when no configuration matches.',
  status: 200,
  params: CheckoutSessionFieldsParams,
  response: CheckoutSessionAcquirerSchema,
  handler: ({ ctx, params }) => run(ctx, params.session_id),
});
