import { defineRoute } from '../../../http/define-route.ts';
import { CreateGiftCardBody, GiftCardSchema } from '../gift-cards.schemas.ts';
import { createGiftCard as create } from '../gift-cards.service.ts';

export const createGiftCard = defineRoute({
  operationId: 'createGiftCard',
  method: 'POST',
  url: '/gift-cards',
  scope: 'gift-cards.write',
  tags: ['gift-cards'],
  summary: 'Store a gift card',
  description:
    'Checks the card with the gift card service (400 naming the problem: `invalid_gift_card`, `expired_card`, `inactive_card`), then stores the number and pin encrypted; neither is ever returned. ' +
    'The same card stored twice in a merchant account is 409 `duplicate_record` with the stored card as `resource_id`. Link it to a buyer with buyer_id or buyer_external_identifier (not both). ' +
    "Open to embed tokens (which link it to the buyer they pin only), rate limited for them. 403 in production: the gift card service is the sandbox's simulation (docs/production.md).",
  status: 201,
  embed: true,
  enumerationLimited: true,
  body: CreateGiftCardBody,
  response: GiftCardSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
