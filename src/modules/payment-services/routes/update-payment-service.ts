import { defineRoute } from '../../../http/define-route.ts';
import { CreatePaymentServiceBody, PaymentServiceSchema } from '../payment-services.schemas.ts';
import { createPaymentService } from '../payment-services.service.ts';

/**
 * `POST /payment-services` creates. Its operationId is the client library's (`update_payment_service`):
 * the library swapped the ids of create and update, and clients generated from our document keep
 * the library's method names (docs/decisions.md, "Payment services and definitions").
 */
export const updatePaymentService = defineRoute({
  operationId: 'updatePaymentService',
  method: 'POST',
  url: '/payment-services',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Configure a new payment service (a connection to a payment service definition)',
  description:
    'The fields must be those of the definition: every required one, no unknown key; the connector then verifies them. Secret field values are stored encrypted and never returned. `position` defaults to after the last service of the same method.',
  status: 201,
  body: CreatePaymentServiceBody,
  response: PaymentServiceSchema,
  handler: ({ ctx, body }) => createPaymentService(ctx, body),
});
