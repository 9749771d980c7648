import { defineRoute } from '../../../http/define-route.ts';
import { BuyerParams } from '../buyers.schemas.ts';
import { ShippingDetailsListSchema } from '../shipping-details.schemas.ts';
import { listBuyerShippingDetails as list } from '../shipping-details.service.ts';

export const listBuyerShippingDetails = defineRoute({
  operationId: 'listBuyerShippingDetails',
  method: 'GET',
  url: '/buyers/:buyer_id/shipping-details',
  scope: 'buyers.read',
  tags: ['buyers'],
  summary: "List a buyer's shipping details, newest first",
  description:
    'A plain list without cursors. Contact fields and addresses are masked without the scope buyers.billing-details.read.',
  status: 200,
  params: BuyerParams,
  response: ShippingDetailsListSchema,
  handler: ({ ctx, params }) => list(ctx, params.buyer_id),
});
