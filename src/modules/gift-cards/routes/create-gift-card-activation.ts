import { defineRoute } from '../../../http/define-route.ts';
import { activateGiftCard } from '../gift-card-activations.service.ts';
import { CreateGiftCardActivationBody, GiftCardSchema } from '../gift-cards.schemas.ts';

export const createGiftCardActivation = defineRoute({
  operationId: 'createGiftCardActivation',
  method: 'POST',
  url: '/gift-cards/activations',
  scope: 'gift-cards.write',
  tags: ['gift-cards'],
  summary: 'Activate a gift card',
  description:
    'Activates the card at the gift card service with amount and currency (both or neither: without them the card takes its own face value); its balance is then the activated amount. ' +
    'Refusals are 400 naming the problem at `/number` (`invalid_gift_card`, also for a card already active; `expired_card`), 502 when the service fails. ' +
    'With store=true (pin required) the card is also stored as POST /gift-cards stores it, optionally for buyer_id or buyer_external_identifier (not both, store only), and `id` is the stored card; ' +
    "otherwise `id` identifies the activation and no stored card has it. Number and pin are never returned. Open to embed tokens, rate limited for them. 403 in production: the gift card service is the sandbox's simulation (docs/production.md).",
  status: 201,
  embed: true,
  enumerationLimited: true,
  body: CreateGiftCardActivationBody,
  response: GiftCardSchema,
  handler: ({ ctx, body }) => activateGiftCard(ctx, body),
});
