import { defineRoute } from '../../../http/define-route.ts';
import {
  BuyerShippingDetailsParams,
  ShippingDetailsSchema,
  UpdateShippingDetailsBody,
} from '../shipping-details.schemas.ts';
import { updateBuyerShippingDetails as update } from '../shipping-details.service.ts';

export const updateBuyerShippingDetails = defineRoute({
  operationId: 'updateBuyerShippingDetails',
  method: 'PUT',
  url: '/buyers/:buyer_id/shipping-details/:shipping_details_id',
  scope: 'buyers.write',
  tags: ['buyers'],
  summary: 'Update one set of shipping details',
  description:
    'Partial update: fields that are not sent keep their value, null clears a field; `address`, when sent, replaces the stored address whole.',
  status: 200,
  params: BuyerShippingDetailsParams,
  body: UpdateShippingDetailsBody,
  bodyOptional: true,
  response: ShippingDetailsSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.buyer_id, params.shipping_details_id, body),
});
