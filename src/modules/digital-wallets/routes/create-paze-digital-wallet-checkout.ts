import { defineRoute } from '../../../http/define-route.ts';
import { PazeCheckoutBody, PazeCheckoutSchema } from '../paze-sessions.schemas.ts';
import { createPazeCheckout } from '../paze-sessions.service.ts';

export const createPazeDigitalWalletCheckout = defineRoute({
  operationId: 'createPazeDigitalWalletCheckout',
  method: 'POST',
  url: '/digital-wallets/paze/session/create',
  scope: 'digital-wallets.write',
  embed: true,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Create the checkout of a Paze mobile session',
  description:
    "With the accessToken and sessionId of a mobile session: answers the pazeCheckoutUrl the app opens; the buyer's choice returns to <callbackURLScheme>://paze?code=…. " +
    "Paze's server API: simulated in the sandbox (a page of test cards served by this server), refused in production.",
  status: 200,
  body: PazeCheckoutBody,
  response: PazeCheckoutSchema,
  handler: ({ ctx, body }) => createPazeCheckout(ctx, body),
});
