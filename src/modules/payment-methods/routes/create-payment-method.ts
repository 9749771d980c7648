import { defineRoute } from '../../../http/define-route.ts';
import { CreateCardPaymentMethodBody, PaymentMethodSchema } from '../payment-methods.schemas.ts';
import { storeCard } from '../payment-methods.service.ts';

export const createPaymentMethod = defineRoute({
  operationId: 'createPaymentMethod',
  method: 'POST',
  url: '/payment-methods',
  scope: 'payment-methods.write',
  tags: ['payment-methods'],
  summary: 'Store (vault) a payment method',
  description:
    'Stores a card: the number is validated (digits, length for its scheme, Luhn), encrypted at rest and never returned; the expiry must not be in the past. ' +
    'A security code, when given, is kept encrypted for its first use and at most one hour. Link it to a buyer with buyer_id or buyer_external_identifier.',
  status: 201,
  body: CreateCardPaymentMethodBody,
  response: PaymentMethodSchema,
  handler: ({ ctx, body }) => storeCard(ctx, body),
});
