import { defineRoute } from '../../../http/define-route.ts';
import { CreateGiftCardIssuanceBody, GiftCardIssuanceSchema } from '../gift-card-issuances.schemas.ts';
import { createGiftCardIssuance as issue } from '../gift-card-issuances.service.ts';

export const createGiftCardIssuance = defineRoute({
  operationId: 'createGiftCardIssuance',
  method: 'POST',
  url: '/gift-cards/issuances',
  scope: 'gift-cards.write',
  tags: ['gift-cards'],
  summary: 'Issue a virtual gift card',
  description:
    'The gift card service issues a new virtual card of amount in currency with the design `theme`; `url` is where the buyer opens it. ' +
    "A refused amount or currency is 400 naming the field; any other refusal is 502. 403 in production: the gift card service is the sandbox's simulation (docs/production.md).",
  status: 201,
  body: CreateGiftCardIssuanceBody,
  response: GiftCardIssuanceSchema,
  handler: ({ ctx, body }) => issue(ctx, body),
});
