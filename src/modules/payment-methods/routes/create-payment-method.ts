import { defineRoute } from '../../../http/define-route.ts';
import { CreatePaymentMethodBody, PaymentMethodSchema } from '../payment-methods.schemas.ts';
import { createPaymentMethod as create } from '../payment-methods.service.ts';

export const createPaymentMethod = defineRoute({
  operationId: 'createPaymentMethod',
  method: 'POST',
  url: '/payment-methods',
  scope: 'payment-methods.write',
  tags: ['payment-methods'],
  summary: 'Store (vault) a payment method',
  description:
    'Stores a card: the number is validated (digits, length for its scheme, Luhn), encrypted at rest and never returned; the expiry must not be in the past. ' +
    'A security code, when given, is kept encrypted for its first use and at most one hour. Link it to a buyer with buyer_id or buyer_external_identifier. ' +
    'With `method: checkout-session` and the session `id`, stores the card a checkout session holds (400 when it holds none).',
  status: 201,
  body: CreatePaymentMethodBody,
  response: PaymentMethodSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
