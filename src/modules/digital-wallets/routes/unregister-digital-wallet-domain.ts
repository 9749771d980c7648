import { defineRoute } from '../../../http/define-route.ts';
import { DigitalWalletDomainBody, DigitalWalletParams } from '../digital-wallets.schemas.ts';
import { editDomain } from '../digital-wallets.service.ts';

export const unregisterDigitalWalletDomain = defineRoute({
  operationId: 'unregisterDigitalWalletDomain',
  method: 'DELETE',
  url: '/digital-wallets/:digital_wallet_id/domains',
  scope: 'digital-wallets.write',
  tags: ['digital-wallets'],
  summary: 'Remove a domain from a wallet (Apple Pay only)',
  description: 'JSON body. Idempotent: removing a domain that is not registered answers 204 too.',
  status: 204,
  params: DigitalWalletParams,
  body: DigitalWalletDomainBody,
  response: null,
  handler: async ({ ctx, params, body }) => {
    await editDomain(ctx, params.digital_wallet_id, body, 'remove');
  },
});
