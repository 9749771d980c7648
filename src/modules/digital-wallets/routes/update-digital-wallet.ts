import { defineRoute } from '../../../http/define-route.ts';
import { DigitalWalletParams, DigitalWalletSchema, UpdateDigitalWalletBody } from '../digital-wallets.schemas.ts';
import { updateDigitalWallet as run } from '../digital-wallets.service.ts';

export const updateDigitalWallet = defineRoute({
  operationId: 'updateDigitalWallet',
  method: 'PUT',
  url: '/digital-wallets/:digital_wallet_id',
  scope: 'digital-wallets.write',
  tags: ['digital-wallets'],
  summary: 'Update a digital wallet',
  description:
    'Fields left out keep their value; null clears an optional field. The provider cannot change. Key fields replace the stored keys (null removes them).',
  status: 200,
  params: DigitalWalletParams,
  body: UpdateDigitalWalletBody,
  response: DigitalWalletSchema,
  handler: ({ ctx, params, body }) => run(ctx, params.digital_wallet_id, body),
});
