import { defineRoute } from '../../../http/define-route.ts';
import { GiftCardsSchema, ListGiftCardsQuery } from '../gift-cards.schemas.ts';
import { listGiftCards as list } from '../gift-cards.service.ts';

export const listGiftCards = defineRoute({
  operationId: 'listGiftCards',
  method: 'GET',
  url: '/gift-cards',
  scope: 'gift-cards.read',
  tags: ['gift-cards'],
  summary: 'List stored gift cards, newest first',
  status: 200,
  querystring: ListGiftCardsQuery,
  response: GiftCardsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
