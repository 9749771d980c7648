import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { StringEnum } from '../../../http/schemas/common.ts';
import { REDIRECT_METHODS } from '../../transactions/create-transaction.schema.ts';
import { payLink } from '../link-payment.service.ts';
import { checkOrigin, checkPageToken } from '../page/page-security.ts';
import { linkBucket, pageLimits, sessionBucket } from '../page/page-limits.ts';
import { TOKEN_HEADER } from './create-payment-link-page-session.ts';
import { pageContext, PageParams, pagePath } from './page-support.ts';

const Outcome = Type.Object(
  {
    outcome: Type.Union([Type.Literal('paid'), Type.Literal('declined'), Type.Literal('pending')]),
    transaction_id: Type.String({ format: 'uuid' }),
    transaction_status: Type.String(),
    page_message: Type.String({ description: 'What the page tells the buyer, in the link\'s locale' }),
    next_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the page sends the buyer: an approval page, the return URL, or the page itself' }),
  },
  { additionalProperties: false, title: 'PaymentLinkPagePayment' },
);

export const createPaymentLinkPagePayment = defineRoute({
  operationId: 'createPaymentLinkPagePayment',
  method: 'POST',
  url: '/pay/:merchant_account_id/:payment_link_id/payments',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-links'],
  summary: 'The hosted page pays the link with the card in its checkout session (called by the page\'s script)',
  description:
    'Claims the link under its row lock (two buyers at once: the second gets 400 `payment_link_not_payable`), then makes the transaction through the normal engine (routing rules apply) with payment_link_id set. ' +
    'Needs the page token and a JSON body; counted per link and against the checkout session\'s own budget (EMBED_RATE_LIMIT_PER_MINUTE).',
  status: 200,
  params: PageParams,
  headers: { [TOKEN_HEADER]: Type.Optional(Type.String({ maxLength: 200 })) },
  body: Type.Object(
    {
      checkout_session_id: Type.Optional(Type.String({ format: 'uuid', description: 'Pay with the card in this checkout session' })),
      method: Type.Optional(StringEnum(REDIRECT_METHODS, { description: 'Or pay with this redirect method (the buyer approves on its page)' })),
      cardholder_name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    },
    { additionalProperties: false },
  ),
  response: Outcome,
  handler: async ({ ctx, params, headers, body, request }) => {
    checkOrigin(ctx.deps.config, headers.origin);
    checkPageToken(ctx.deps, params.merchant_account_id, params.payment_link_id, headers[TOKEN_HEADER]);
    const limits = pageLimits(ctx.deps);
    await limits.calls.hit(linkBucket(params.merchant_account_id, params.payment_link_id));
    if (body.checkout_session_id) await limits.calls.hit(sessionBucket(body.checkout_session_id));
    return payLink(pageContext(ctx, params.merchant_account_id), params.payment_link_id, body, request.ip, pagePath(params));
  },
});
