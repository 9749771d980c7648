import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { startPageSession } from '../link-payment.service.ts';
import { checkOrigin, checkPageToken } from '../page/page-security.ts';
import { linkBucket, pageLimits } from '../page/page-limits.ts';
import { pageContext, PageParams } from './page-support.ts';

export const TOKEN_HEADER = 'x-payment-link-token';

export const createPaymentLinkPageSession = defineRoute({
  operationId: 'createPaymentLinkPageSession',
  method: 'POST',
  url: '/pay/:merchant_account_id/:payment_link_id/sessions',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-links'],
  summary: 'The hosted page asks for a checkout session to put the buyer\'s card in (called by the page\'s script)',
  description: 'Needs the page token (header x-payment-link-token) and a JSON body; rate limited per link (EMBED_RATE_LIMIT_PER_MINUTE). 400 `payment_link_not_payable` when the link is completed, expired or processing.',
  status: 201,
  params: PageParams,
  headers: { [TOKEN_HEADER]: Type.Optional(Type.String({ maxLength: 200 })) },
  body: Type.Object({}, { additionalProperties: false }),
  bodyOptional: true,
  response: Type.Object({ id: Type.String({ format: 'uuid', description: 'The checkout session' }) }, { additionalProperties: false }),
  handler: async ({ ctx, params, headers }) => {
    checkOrigin(ctx.deps.config, headers.origin);
    checkPageToken(ctx.deps, params.merchant_account_id, params.payment_link_id, headers[TOKEN_HEADER]);
    await pageLimits(ctx.deps).calls.hit(linkBucket(params.merchant_account_id, params.payment_link_id));
    return startPageSession(pageContext(ctx, params.merchant_account_id), params.payment_link_id);
  },
});
