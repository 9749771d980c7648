import { defineRoute } from '../../../http/define-route.ts';
import { DigitalWalletParams } from '../digital-wallets.schemas.ts';
import { deleteDigitalWallet as run } from '../digital-wallets.service.ts';

export const deleteDigitalWallet = defineRoute({
  operationId: 'deleteDigitalWallet',
  method: 'DELETE',
  url: '/digital-wallets/:digital_wallet_id',
  scope: 'digital-wallets.write',
  tags: ['digital-wallets'],
  summary: 'Delete a digital wallet',
  description: 'Its sealed keys go with it; wallet payments of its provider are refused afterwards.',
  status: 204,
  params: DigitalWalletParams,
  response: null,
  handler: ({ ctx, params }) => run(ctx, params.digital_wallet_id),
});
