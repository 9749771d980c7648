import { defineRoute } from '../../../http/define-route.ts';
import { BuyersSchema, ListBuyersQuery } from '../buyers.schemas.ts';
import { listBuyers as list } from '../buyers.service.ts';

export const listBuyers = defineRoute({
  operationId: 'listBuyers',
  method: 'GET',
  url: '/buyers',
  scope: 'buyers.read',
  tags: ['buyers'],
  summary: 'List or search buyers, newest first',
  description:
    '`search` keeps the buyers whose display_name or external_identifier starts with the term, ignoring case; `external_identifier` keeps the buyer with exactly that identifier. Billing details are masked without the scope buyers.billing-details.read.',
  status: 200,
  querystring: ListBuyersQuery,
  response: BuyersSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
