import { defineRoute } from '../../../http/define-route.ts';
import { BuyerShippingDetailsParams } from '../shipping-details.schemas.ts';
import { deleteBuyerShippingDetails as remove } from '../shipping-details.service.ts';

export const deleteBuyerShippingDetails = defineRoute({
  operationId: 'deleteBuyerShippingDetails',
  method: 'DELETE',
  url: '/buyers/:buyer_id/shipping-details/:shipping_details_id',
  scope: 'buyers.write',
  tags: ['buyers'],
  summary: 'Delete one set of shipping details',
  status: 204,
  params: BuyerShippingDetailsParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.buyer_id, params.shipping_details_id),
});
