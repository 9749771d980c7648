import { defineRoute } from '../../../http/define-route.ts';
import { ClickToPaySessionBody, ClickToPaySessionSchema } from '../wallet-sessions.schemas.ts';
import { createClickToPaySession } from '../wallet-sessions.service.ts';

export const createClickToPayDigitalWalletSession = defineRoute({
  operationId: 'createClickToPayDigitalWalletSession',
  method: 'POST',
  url: '/digital-wallets/click-to-pay/session',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Start a Click to Pay session for a checkout session',
  description: 'No bearer token and no merchant header: the checkout session (unexpired) names the merchant account, whose Click to Pay wallet answers with its digital payment application.',
  status: 200,
  body: ClickToPaySessionBody,
  response: ClickToPaySessionSchema,
  handler: ({ ctx, body }) => createClickToPaySession(ctx.deps, body),
});
