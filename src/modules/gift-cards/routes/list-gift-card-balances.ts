import { defineRoute } from '../../../http/define-route.ts';
import { listGiftCardBalances as list } from '../gift-card-balances.service.ts';
import { GiftCardBalanceBody, GiftCardSummariesSchema } from '../gift-cards.schemas.ts';

export const listGiftCardBalances = defineRoute({
  operationId: 'listGiftCardBalances',
  method: 'POST',
  url: '/gift-cards/balances',
  // A lookup that changes nothing ("list" in its operation id): the read scope guards it.
  scope: 'gift-cards.read',
  tags: ['gift-cards'],
  summary: 'Look up the balances of one or more gift cards',
  description:
    'Each item is a card given in full (`number`, `pin`) or a stored card (`id`). Answers one summary per item, in order, with `balance` or `balance_error_code`; only stored cards carry an `id`. ' +
    "Open to embed tokens (stored cards of the buyer they pin only), rate limited for them. 403 in production: the gift card service is the sandbox's simulation (docs/production.md).",
  status: 200,
  embed: true,
  enumerationLimited: true,
  // A balance is a moment's answer: replaying a stored one later would mislead.
  idempotent: false,
  body: GiftCardBalanceBody,
  response: GiftCardSummariesSchema,
  handler: ({ ctx, body }) => list(ctx, body),
});
