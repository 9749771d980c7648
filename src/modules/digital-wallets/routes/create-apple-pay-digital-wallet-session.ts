import { defineRoute } from '../../../http/define-route.ts';
import { ApplePaySessionBody, ApplePaySessionSchema } from '../wallet-sessions.schemas.ts';
import { createApplePaySession } from '../wallet-sessions.service.ts';

export const createApplePayDigitalWalletSession = defineRoute({
  operationId: 'createApplePayDigitalWalletSession',
  method: 'POST',
  url: '/digital-wallets/apple/session',
  scope: 'digital-wallets.write',
  embed: true,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Start an Apple Pay merchant session',
  description:
    "The domain must be one of the Apple Pay wallet's domains and validation_url an Apple Pay gateway URL. In production the session is requested from Apple over mutual TLS with the wallet's merchant identity certificate and passed through; " +
    'in the sandbox a simulated session of the same shape (marked simulated) is returned. A session is used once and expires after five minutes.',
  status: 200,
  body: ApplePaySessionBody,
  response: ApplePaySessionSchema,
  handler: ({ ctx, body }) => createApplePaySession(ctx, body),
});
