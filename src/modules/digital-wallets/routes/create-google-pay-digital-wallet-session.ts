import { defineRoute } from '../../../http/define-route.ts';
import { GooglePaySessionBody, GooglePaySessionSchema } from '../wallet-sessions.schemas.ts';
import { createGooglePaySession } from '../wallet-sessions.service.ts';

export const createGooglePayDigitalWalletSession = defineRoute({
  operationId: 'createGooglePayDigitalWalletSession',
  method: 'POST',
  url: '/digital-wallets/google/session',
  scope: 'digital-wallets.write',
  embed: true,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Start a Google Pay session',
  description:
    'Needs a Google Pay wallet. Answers the gateway merchant id for the Google Pay request and a JWT for merchantInfo.authJwt naming origin_domain (valid for an hour).',
  status: 200,
  body: GooglePaySessionBody,
  response: GooglePaySessionSchema,
  handler: ({ ctx, body }) => createGooglePaySession(ctx, body),
});
