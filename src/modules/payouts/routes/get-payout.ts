import { defineRoute } from '../../../http/define-route.ts';
import { PayoutParams, PayoutSchema } from '../payouts.schemas.ts';
import { getPayout as run } from '../payouts.service.ts';

export const getPayout = defineRoute({
  operationId: 'getPayout',
  method: 'GET',
  url: '/payouts/:payout_id',
  scope: 'payouts.read',
  tags: ['payouts'],
  summary: 'Read a payout',
  status: 200,
  params: PayoutParams,
  response: PayoutSchema,
  handler: ({ ctx, params }) => run(ctx, params.payout_id),
});
