import { defineRoute } from '../../../http/define-route.ts';
import { PaymentOptionRequestBody, PaymentOptionsSchema } from '../payment-options.schemas.ts';
import { findPaymentOptions } from '../payment-options.service.ts';

export const listPaymentOptions = defineRoute({
  operationId: 'listPaymentOptions',
  method: 'POST',
  url: '/payment-options',
  scope: 'payment-options.read',
  tags: ['payment-options'],
  summary: 'List the payment options to show at checkout',
  description:
    "One option per method, from the merchant account's active payment services (by position) that accept the currency and country, and whose definition accepts the cart. " +
    'Without a matching service the list is empty. Open to embed tokens; their pins apply to the body. A read: it takes no idempotency-key.',
  status: 200,
  body: PaymentOptionRequestBody,
  idempotent: false,
  embed: true,
  response: PaymentOptionsSchema,
  handler: ({ ctx, body }) => findPaymentOptions(ctx, body),
});
