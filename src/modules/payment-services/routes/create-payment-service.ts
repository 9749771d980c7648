import { defineRoute } from '../../../http/define-route.ts';
import { CreatePaymentServiceBody, PaymentServiceSchema } from '../payment-services.schemas.ts';
import { createPaymentService as createService } from '../payment-services.service.ts';

/**
 * `POST /payment-services` creates a service. The original API's client library calls this
 * operation `update_payment_service` (its ids of create and update are swapped); ours is correct,
 * and the description names the library's so its users can find it (docs/api-reference.md).
 */
export const createPaymentService = defineRoute({
  operationId: 'createPaymentService',
  method: 'POST',
  url: '/payment-services',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Configure a new payment service (a connection to a payment service definition)',
  description:
    'The fields must be those of the definition: every required one, no unknown key; the connector then verifies them. Secret field values are stored encrypted and never returned. `position` defaults to after the last service of the same method.\n\n' +
    "The original API's client libraries name this operation `update_payment_service` (`updatePaymentService`): they swap the names of create and update.",
  status: 201,
  body: CreatePaymentServiceBody,
  response: PaymentServiceSchema,
  handler: ({ ctx, body }) => createService(ctx, body),
});
