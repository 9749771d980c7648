import { defineRoute } from '../../../http/define-route.ts';
import { BuyerSchema, CreateBuyerBody } from '../buyers.schemas.ts';
import { addBuyer as add } from '../buyers.service.ts';

export const addBuyer = defineRoute({
  operationId: 'addBuyer',
  method: 'POST',
  url: '/buyers',
  scope: 'buyers.write',
  tags: ['buyers'],
  summary: 'Create a buyer',
  description:
    'Every field is optional. `external_identifier` is unique per merchant account: a second buyer with the same one answers 409 with the existing buyer id in resource_id. Billing details in the response are masked without the scope buyers.billing-details.read.',
  status: 201,
  body: CreateBuyerBody,
  bodyOptional: true,
  response: BuyerSchema,
  handler: ({ ctx, body }) => add(ctx, body),
});
