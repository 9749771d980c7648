import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { StringEnum } from '../../../http/schemas/common.ts';
import { REDIRECT_METHODS } from '../../transactions/create-transaction.schema.ts';
import { payLink } from '../link-payment.service.ts';
import { WALLET_METHODS } from '../link-wallets.ts';
import { pageLimits, sessionBucket } from '../page/page-limits.ts';
import { guardPageCall, pageContext, PageParams, pagePath, TokenHeaders } from './page-support.ts';

const Outcome = Type.Object(
  {
    outcome: Type.Union([Type.Literal('paid'), Type.Literal('declined'), Type.Literal('pending')]),
    transaction_id: Type.String({ format: 'uuid' }),
    transaction_status: Type.String(),
    page_message: Type.String({ description: "What the page tells the buyer, in the link's locale" }),
    next_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Where the page sends the buyer: an approval page, the return URL, or the page itself',
    }),
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
  summary:
    "The hosted page pays the link with the card in its checkout session, a redirect method or a wallet token (called by the page's script)",
  description:
    'Claims the link under its row lock (two buyers at once: the second gets 400 `payment_link_not_payable`), then makes the transaction through the normal engine (routing rules apply) with payment_link_id set. ' +
    'A wallet (applepay, googlepay) must be offered for the link, and its token is verified and decrypted as for POST /transactions. ' +
    "Needs the page token and a JSON body; counted per link and against the checkout session's own budget (EMBED_RATE_LIMIT_PER_MINUTE).",
  status: 200,
  params: PageParams,
  headers: TokenHeaders,
  body: Type.Object(
    {
      checkout_session_id: Type.Optional(
        Type.String({ format: 'uuid', description: 'Pay with the card in this checkout session' }),
      ),
      method: Type.Optional(
        StringEnum([...REDIRECT_METHODS, ...WALLET_METHODS], {
          description: "Or pay with this redirect method (the buyer approves on its page), or with this wallet's token",
        }),
      ),
      token: Type.Optional(
        Type.Union([Type.String({ minLength: 1, maxLength: 20_000 }), Type.Record(Type.String(), Type.Unknown())], {
          description:
            "With applepay or googlepay: Apple Pay JS's payment.token, or Google Pay's tokenizationData.token",
        }),
      ),
      card_suffix: Type.Optional(
        Type.String({
          pattern: '^\\d{4}$',
          description: 'With applepay or googlepay: the last four digits the wallet shows',
        }),
      ),
      cardholder_name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    },
    { additionalProperties: false },
  ),
  response: Outcome,
  handler: async ({ ctx, params, headers, body, request }) => {
    await guardPageCall(ctx, params, headers);
    if (body.checkout_session_id) await pageLimits(ctx.deps).calls.hit(sessionBucket(body.checkout_session_id));
    return payLink(
      pageContext(ctx, params.merchant_account_id),
      params.payment_link_id,
      body,
      request.ip,
      pagePath(params),
    );
  },
});
