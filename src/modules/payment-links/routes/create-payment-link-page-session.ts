import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { startPageSession } from '../link-payment.service.ts';
import { guardPageCall, pageContext, PageParams, TokenHeaders } from './page-support.ts';

export const createPaymentLinkPageSession = defineRoute({
  operationId: 'createPaymentLinkPageSession',
  method: 'POST',
  url: '/pay/:merchant_account_id/:payment_link_id/sessions',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-links'],
  summary: "The hosted page asks for a checkout session to put the buyer's card in (called by the page's script)",
  description:
    'Needs the page token (header x-payment-link-token) and a JSON body; rate limited per link (EMBED_RATE_LIMIT_PER_MINUTE). 400 `payment_link_not_payable` when the link is completed, expired or processing.',
  status: 201,
  params: PageParams,
  headers: TokenHeaders,
  body: Type.Object({}, { additionalProperties: false }),
  bodyOptional: true,
  response: Type.Object(
    { id: Type.String({ format: 'uuid', description: 'The checkout session' }) },
    { additionalProperties: false },
  ),
  handler: async ({ ctx, params, headers }) => {
    await guardPageCall(ctx, params, headers);
    return startPageSession(pageContext(ctx, params.merchant_account_id), params.payment_link_id);
  },
});
