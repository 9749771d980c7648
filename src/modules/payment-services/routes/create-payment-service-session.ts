import { defineRoute } from '../../../http/define-route.ts';
import {
  CreateSessionBody,
  CreateSessionSchema,
} from '../../payment-service-definitions/payment-service-definitions.schemas.ts';
import { PaymentServiceParams } from '../payment-services.schemas.ts';
import { createPaymentServiceSession as create } from '../payment-services.service.ts';

export const createPaymentServiceSession = defineRoute({
  operationId: 'createPaymentServiceSession',
  method: 'POST',
  url: '/payment-services/:payment_service_id/sessions',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Open a provider session through a configured payment service',
  description:
    "The body is passed to the payment service with the service's credentials. A definition without sessions answers 400; a technical failure of the provider 502 (504 on a timeout); a refusal 200 with status `failed`.",
  status: 200,
  params: PaymentServiceParams,
  body: CreateSessionBody,
  bodyOptional: true,
  response: CreateSessionSchema,
  handler: ({ ctx, params, body }) => create(ctx, params.payment_service_id, body),
});
