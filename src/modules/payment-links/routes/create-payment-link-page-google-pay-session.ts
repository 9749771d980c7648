import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { startPageGooglePaySession } from '../page-wallets.service.ts';
import { GooglePaymentDataRequestSchema } from '../page/wallet-requests.ts';
import { guardPageCall, pageContext, PageParams, TokenHeaders } from './page-support.ts';

export const createPaymentLinkPageGooglePaySession = defineRoute({
  operationId: 'createPaymentLinkPageGooglePaySession',
  method: 'POST',
  url: '/pay/:merchant_account_id/:payment_link_id/google-pay/session',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-links'],
  summary: "The hosted page's Google Pay PaymentDataRequest for pay.js (called by the page's script)",
  description:
    "Built from the link (amount, currency, country) and its googlepay payment option (schemes): DIRECT tokenization to the wallet's processing key when it has one, else the sandbox gateway (svc, the merchant account as gatewayMerchantId); " +
    "merchantInfo names the page's host as merchantOrigin with a fresh authJwt. Google Pay must be offered for the link. Needs the page token; counted per link.",
  status: 200,
  params: PageParams,
  headers: TokenHeaders,
  body: Type.Object({}, { additionalProperties: false }),
  bodyOptional: true,
  response: Type.Object(
    {
      environment: Type.Union([Type.Literal('TEST'), Type.Literal('PRODUCTION')], {
        description: 'The PaymentsClient environment',
      }),
      payment_data_request: GooglePaymentDataRequestSchema,
    },
    { additionalProperties: false, title: 'PaymentLinkPageGooglePaySession' },
  ),
  handler: async ({ ctx, params, headers }) => {
    await guardPageCall(ctx, params, headers);
    return startPageGooglePaySession(pageContext(ctx, params.merchant_account_id), params.payment_link_id);
  },
});
