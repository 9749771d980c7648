import { defineRoute } from '../../../http/define-route.ts';
import { GiftCardParams } from '../gift-cards.schemas.ts';
import { deleteGiftCard as remove } from '../gift-cards.service.ts';

export const deleteGiftCard = defineRoute({
  operationId: 'deleteGiftCard',
  method: 'DELETE',
  url: '/gift-cards/:gift_card_id',
  scope: 'gift-cards.write',
  tags: ['gift-cards'],
  summary: 'Delete a stored gift card and its encrypted number and pin',
  description: 'The redemptions it funded stay on their transactions, without the gift card id.',
  status: 204,
  params: GiftCardParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.gift_card_id),
});
