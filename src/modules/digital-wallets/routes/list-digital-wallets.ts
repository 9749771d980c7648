import { defineRoute } from '../../../http/define-route.ts';
import { DigitalWalletsSchema } from '../digital-wallets.schemas.ts';
import { listDigitalWallets as run } from '../digital-wallets.service.ts';

export const listDigitalWallets = defineRoute({
  operationId: 'listDigitalWallets',
  method: 'GET',
  url: '/digital-wallets',
  scope: 'digital-wallets.read',
  tags: ['digital-wallets'],
  summary: 'List registered digital wallets',
  description: 'At most one wallet per provider, ordered by provider; no cursor.',
  status: 200,
  response: DigitalWalletsSchema,
  handler: ({ ctx }) => run(ctx),
});
