import { defineRoute } from '../../../http/define-route.ts';
import { BuyerParams, BuyerSchema } from '../buyers.schemas.ts';
import { getBuyer as get } from '../buyers.service.ts';

export const getBuyer = defineRoute({
  operationId: 'getBuyer',
  method: 'GET',
  url: '/buyers/:buyer_id',
  scope: 'buyers.read',
  tags: ['buyers'],
  summary: 'Read a buyer',
  description: 'Billing details are masked without the scope buyers.billing-details.read.',
  status: 200,
  params: BuyerParams,
  response: BuyerSchema,
  handler: ({ ctx, params }) => get(ctx, params.buyer_id),
});
