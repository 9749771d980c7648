import { defineRoute } from '../../../http/define-route.ts';
import { BuyerShippingDetailsParams, ShippingDetailsSchema } from '../shipping-details.schemas.ts';
import { getBuyerShippingDetails as get } from '../shipping-details.service.ts';

export const getBuyerShippingDetails = defineRoute({
  operationId: 'getBuyerShippingDetails',
  method: 'GET',
  url: '/buyers/:buyer_id/shipping-details/:shipping_details_id',
  scope: 'buyers.read',
  tags: ['buyers'],
  summary: 'Read one set of shipping details',
  description: 'Contact fields and address are masked without the scope buyers.billing-details.read.',
  status: 200,
  params: BuyerShippingDetailsParams,
  response: ShippingDetailsSchema,
  handler: ({ ctx, params }) => get(ctx, params.buyer_id, params.shipping_details_id),
});
