import { defineRoute } from '../../../http/define-route.ts';
import { GiftCardParams, GiftCardSchema } from '../gift-cards.schemas.ts';
import { getGiftCard as get } from '../gift-cards.service.ts';

export const getGiftCard = defineRoute({
  operationId: 'getGiftCard',
  method: 'GET',
  url: '/gift-cards/:gift_card_id',
  scope: 'gift-cards.read',
  tags: ['gift-cards'],
  summary: 'Read a stored gift card',
  status: 200,
  params: GiftCardParams,
  response: GiftCardSchema,
  handler: ({ ctx, params }) => get(ctx, params.gift_card_id),
});
