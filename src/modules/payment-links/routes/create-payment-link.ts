import { defineRoute } from '../../../http/define-route.ts';
import { CreatePaymentLinkBody, PaymentLinkSchema } from '../payment-links.schemas.ts';
import { createPaymentLink as run } from '../payment-links.service.ts';

export const createPaymentLink = defineRoute({
  operationId: 'createPaymentLink',
  method: 'POST',
  url: '/payment-links',
  scope: 'payment-links.write',
  tags: ['payment-links'],
  summary: 'Create a payment link: a hosted page (its url) where a buyer pays the amount once',
  description:
    'The link is `active` until it is paid (`completed`), expired (`expires_at`, default 24 hours, at most 90 days ahead, or POST .../expire) or while a payment is in flight (`processing`). ' +
    "Its payment is a normal transaction with the link's amount, currency, country, intent, payment source, metadata, cart items, statement descriptor, external identifier, buyer and connection options (routing rules apply), " +
    "carrying the link's id in `payment_link_id` (GET /transactions?payment_link_id=). A link with a buyer_id offers that buyer's stored cards on its page: treat its url as a secret.",
  status: 201,
  body: CreatePaymentLinkBody,
  response: PaymentLinkSchema,
  handler: ({ ctx, body }) => run(ctx, body),
});
