import { defineRoute } from '../../../http/define-route.ts';
import { PazeSessionBody, PazeSessionSchema } from '../paze-sessions.schemas.ts';
import { createPazeSession } from '../paze-sessions.service.ts';

export const createPazeDigitalWalletSession = defineRoute({
  operationId: 'createPazeDigitalWalletSession',
  method: 'POST',
  url: '/digital-wallets/paze/session',
  scope: 'digital-wallets.write',
  embed: true,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Start a Paze session',
  description:
    "Needs a Paze wallet. source web (default; domain_name required) answers the configuration of Paze's JavaScript SDK: the Paze client id and name and the merchant's profile id. " +
    "source mobile also starts a session for the mobile checkout (accessToken, sessionId): Paze's server API, simulated in the sandbox and refused in production.",
  status: 200,
  body: PazeSessionBody,
  response: PazeSessionSchema,
  handler: ({ ctx, body }) => createPazeSession(ctx, body),
});
