import { defineRoute } from '../../../http/define-route.ts';
import { CreateDigitalWalletBody, DigitalWalletSchema } from '../digital-wallets.schemas.ts';
import { createDigitalWallet as run } from '../digital-wallets.service.ts';

export const createDigitalWallet = defineRoute({
  operationId: 'createDigitalWallet',
  method: 'POST',
  url: '/digital-wallets',
  scope: 'digital-wallets.write',
  tags: ['digital-wallets'],
  summary: 'Register a digital wallet',
  description:
    'One wallet per provider and merchant account (a second one is 409 with the existing wallet as resource_id). accept_terms_and_conditions must be true. ' +
    "With payment_processing_private_key (and apple_merchant_identifier or google_merchant_id) this server decrypts the wallet's payment tokens itself; the keys are sealed by the vault and never returned.",
  status: 201,
  body: CreateDigitalWalletBody,
  response: DigitalWalletSchema,
  handler: ({ ctx, body }) => run(ctx, body),
});
