import { defineRoute } from '../../../http/define-route.ts';
import { listBuyerGiftCards as list } from '../gift-card-balances.service.ts';
import { GiftCardSummariesSchema, ListBuyerGiftCardsQuery } from '../gift-cards.schemas.ts';

export const listBuyerGiftCards = defineRoute({
  operationId: 'listBuyerGiftCards',
  method: 'GET',
  url: '/buyers/gift-cards',
  // The resource is stored gift cards, so their read scope (not buyers.read) guards it.
  scope: 'gift-cards.read',
  tags: ['gift-cards', 'buyers'],
  summary: "List a buyer's stored gift cards with their balances",
  description:
    'The buyer is chosen by `buyer_id` or `buyer_external_identifier`. Newest first, at most 20. Open to embed tokens, which see only the buyer they pin.',
  status: 200,
  embed: true,
  querystring: ListBuyerGiftCardsQuery,
  response: GiftCardSummariesSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
