import { defineRoute } from '../../../http/define-route.ts';
import { ListPayoutsQuery, PayoutsSchema } from '../payouts.schemas.ts';
import { listPayouts as run } from '../payouts.service.ts';

export const listPayouts = defineRoute({
  operationId: 'listPayouts',
  method: 'GET',
  url: '/payouts',
  scope: 'payouts.read',
  tags: ['payouts'],
  summary: 'List payouts, newest first',
  description:
    'Filters: created and updated ranges (with a time zone offset), external_identifier, payment_service_payout_id, and status (repeat the key to match any).',
  status: 200,
  querystring: ListPayoutsQuery,
  response: PayoutsSchema,
  handler: ({ ctx, query }) => run(ctx, query),
});
