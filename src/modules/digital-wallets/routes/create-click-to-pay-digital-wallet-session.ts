import { defineRoute } from '../../../http/define-route.ts';
import { failedLookups } from '../../../http/failed-lookups.ts';
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
  description:
    'No bearer token and no merchant header: the checkout session (unexpired) names the merchant account, whose Click to Pay wallet answers with its digital payment application. ' +
    "An unknown or expired session is a failed lookup of the client address: 429 once the address is out of them (as for a checkout session's fields).",
  status: 200,
  body: ClickToPaySessionBody,
  response: ClickToPaySessionSchema,
  handler: ({ ctx, body, request }) =>
    failedLookups(ctx.deps).guard(request.ip, () => createClickToPaySession(ctx.deps, body)),
});
