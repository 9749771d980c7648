import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { ApplePaySessionSchema } from '../../digital-wallets/wallet-sessions.schemas.ts';
import { startPageApplePaySession } from '../page-wallets.service.ts';
import { guardPageCall, pageContext, PageParams, TokenHeaders } from './page-support.ts';

export const createPaymentLinkPageApplePaySession = defineRoute({
  operationId: 'createPaymentLinkPageApplePaySession',
  method: 'POST',
  url: '/pay/:merchant_account_id/:payment_link_id/apple-pay/session',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-links'],
  summary: "The hosted page's Apple Pay merchant validation (onvalidatemerchant; called by the page's script)",
  description:
    "The Apple Pay merchant session of the link's merchant account for the page's domain (the host of PUBLIC_URL, which must be a domain of the Apple Pay wallet), as POST /digital-wallets/apple/session answers it: " +
    'requested from Apple in production, simulated in the sandbox. Apple Pay must be offered for the link. Needs the page token; counted per link.',
  status: 200,
  params: PageParams,
  headers: TokenHeaders,
  body: Type.Object(
    {
      validation_url: Type.String({
        format: 'uri',
        maxLength: 2000,
        description: "The validationURL of Apple Pay JS's onvalidatemerchant event (an Apple host)",
      }),
    },
    { additionalProperties: false },
  ),
  response: ApplePaySessionSchema,
  handler: async ({ ctx, params, headers, body }) => {
    await guardPageCall(ctx, params, headers);
    return startPageApplePaySession(
      pageContext(ctx, params.merchant_account_id),
      params.payment_link_id,
      body.validation_url,
    );
  },
});
