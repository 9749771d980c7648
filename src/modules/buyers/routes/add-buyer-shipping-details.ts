import { defineRoute } from '../../../http/define-route.ts';
import { BuyerParams } from '../buyers.schemas.ts';
import { CreateShippingDetailsBody, ShippingDetailsSchema } from '../shipping-details.schemas.ts';
import { addBuyerShippingDetails as add } from '../shipping-details.service.ts';

export const addBuyerShippingDetails = defineRoute({
  operationId: 'addBuyerShippingDetails',
  method: 'POST',
  url: '/buyers/:buyer_id/shipping-details',
  scope: 'buyers.write',
  tags: ['buyers'],
  summary: 'Add shipping details to a buyer',
  description:
    'At most 100 per buyer. Contact fields and address in the response are masked without the scope buyers.billing-details.read.',
  status: 201,
  params: BuyerParams,
  body: CreateShippingDetailsBody,
  bodyOptional: true,
  response: ShippingDetailsSchema,
  handler: ({ ctx, params, body }) => add(ctx, params.buyer_id, body),
});
