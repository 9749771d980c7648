import { defineRoute } from '../../../http/define-route.ts';
import { PazeCompleteBody, PazeCompleteSchema } from '../paze-sessions.schemas.ts';
import { completePazeSession } from '../paze-sessions.service.ts';

export const completePazeDigitalWalletSession = defineRoute({
  operationId: 'completePazeDigitalWalletSession',
  method: 'POST',
  url: '/digital-wallets/paze/session/complete',
  scope: 'digital-wallets.write',
  embed: true,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Complete a Paze mobile checkout',
  description:
    "Answers the completeResponse to pay with (POST /transactions, payment_method {method: paze, token: completeResponse}): a JWS signed by Paze wrapping the network token and a fresh cryptogram encrypted to the wallet's key. " +
    "Simulated in the sandbox (signed by the sandbox Paze key, encrypted to the wallet's payment_processing_private_key or the sandbox key), refused in production.",
  status: 200,
  body: PazeCompleteBody,
  response: PazeCompleteSchema,
  handler: ({ ctx, body }) => completePazeSession(ctx, body),
});
