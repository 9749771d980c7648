import { defineRoute } from '../../../http/define-route.ts';
import { DigitalWalletDomainBody, DigitalWalletParams, DigitalWalletSchema } from '../digital-wallets.schemas.ts';
import { editDomain } from '../digital-wallets.service.ts';

export const registerDigitalWalletDomain = defineRoute({
  operationId: 'registerDigitalWalletDomain',
  method: 'POST',
  url: '/digital-wallets/:digital_wallet_id/domains',
  scope: 'digital-wallets.write',
  tags: ['digital-wallets'],
  summary: 'Add a domain to a wallet (Apple Pay only)',
  description:
    "Idempotent: a domain already registered is left as it is. The merchant hosts Apple's domain association file at /.well-known/apple-developer-merchantid-domain-association on it. Answers the wallet.",
  status: 200,
  params: DigitalWalletParams,
  body: DigitalWalletDomainBody,
  response: DigitalWalletSchema,
  handler: ({ ctx, params, body }) => editDomain(ctx, params.digital_wallet_id, body, 'add'),
});
