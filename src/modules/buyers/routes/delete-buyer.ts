import { defineRoute } from '../../../http/define-route.ts';
import { BuyerParams } from '../buyers.schemas.ts';
import { deleteBuyer as remove } from '../buyers.service.ts';

export const deleteBuyer = defineRoute({
  operationId: 'deleteBuyer',
  method: 'DELETE',
  url: '/buyers/:buyer_id',
  scope: 'buyers.write',
  tags: ['buyers'],
  summary: 'Delete a buyer permanently, with its shipping details',
  status: 204,
  params: BuyerParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.buyer_id),
});
