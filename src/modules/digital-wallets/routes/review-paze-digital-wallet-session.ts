import { defineRoute } from '../../../http/define-route.ts';
import { PazeReviewBody, PazeReviewSchema } from '../paze-sessions.schemas.ts';
import { reviewPazeSession } from '../paze-sessions.service.ts';

export const reviewPazeDigitalWalletSession = defineRoute({
  operationId: 'reviewPazeDigitalWalletSession',
  method: 'POST',
  url: '/digital-wallets/paze/session/review',
  scope: 'digital-wallets.write',
  embed: true,
  idempotent: false,
  tags: ['digital-wallets'],
  summary: 'Review a Paze mobile checkout',
  description:
    'With the code the checkout returned: the consumer, the shipping address and the chosen card (masked), and the code to complete with. Simulated in the sandbox, refused in production.',
  status: 200,
  body: PazeReviewBody,
  response: PazeReviewSchema,
  handler: ({ ctx, body }) => reviewPazeSession(ctx, body),
});
