import { defineRoute } from '../../../http/define-route.ts';
import { BuyerParams, BuyerSchema, UpdateBuyerBody } from '../buyers.schemas.ts';
import { updateBuyer as update } from '../buyers.service.ts';

export const updateBuyer = defineRoute({
  operationId: 'updateBuyer',
  method: 'PUT',
  url: '/buyers/:buyer_id',
  scope: 'buyers.write',
  tags: ['buyers'],
  summary: 'Update a buyer',
  description:
    'Partial update: fields that are not sent keep their value, null clears a field. `billing_details`, when sent, replaces the stored billing details whole. An external_identifier held by another buyer answers 409 with that buyer id in resource_id.',
  status: 200,
  params: BuyerParams,
  body: UpdateBuyerBody,
  bodyOptional: true,
  response: BuyerSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.buyer_id, body),
});
