import { defineRoute } from '../../../http/define-route.ts';
import { DigitalWalletParams, DigitalWalletSchema } from '../digital-wallets.schemas.ts';
import { getDigitalWallet as run } from '../digital-wallets.service.ts';

export const getDigitalWallet = defineRoute({
  operationId: 'getDigitalWallet',
  method: 'GET',
  url: '/digital-wallets/:digital_wallet_id',
  scope: 'digital-wallets.read',
  tags: ['digital-wallets'],
  summary: 'Read a digital wallet',
  status: 200,
  params: DigitalWalletParams,
  response: DigitalWalletSchema,
  handler: ({ ctx, params }) => run(ctx, params.digital_wallet_id),
});
