import { defineRoute } from '../../../http/define-route.ts';
import { createPayout as run, resumePayout } from '../create-payout.service.ts';
import { CreatePayoutBody, PayoutSchema } from '../payouts.schemas.ts';

export const createPayout = defineRoute({
  operationId: 'createPayout',
  method: 'POST',
  url: '/payouts',
  scope: 'payouts.write',
  tags: ['payouts'],
  summary: 'Send funds to a card (a payout)',
  description:
    'The payment service must be an active one of the merchant account whose connector makes payouts. The card is a card (never stored) or a stored card (`id`). ' +
    'The payout is recorded before the connector is called, outside any database transaction; a declined or failed payout is still 201 with its status. ' +
    'A connector timeout or a `pending` answer leaves the payout `pending` until reconciliation settles it. Send an `idempotency-key` to retry safely.',
  status: 201,
  body: CreatePayoutBody,
  response: PayoutSchema,
  // A retry whose first request died after recording the payout gets that payout, not a second one.
  resume: resumePayout,
  handler: ({ ctx, body }) => run(ctx, body),
});
