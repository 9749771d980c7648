import { defineRoute } from '../../../http/define-route.ts';
import {
  CreateSessionBody,
  CreateSessionSchema,
  PaymentServiceDefinitionParams,
} from '../payment-service-definitions.schemas.ts';
import { createPaymentServiceDefinitionSession as create } from '../payment-service-definitions.service.ts';

export const createPaymentServiceDefinitionSession = defineRoute({
  operationId: 'createPaymentServiceDefinitionSession',
  method: 'POST',
  url: '/payment-service-definitions/:payment_service_definition_id/sessions',
  scope: 'payment-service-definitions.write',
  merchantScoped: false,
  tags: ['payment-service-definitions'],
  summary: 'Open a provider session through a payment service definition, without credentials',
  description:
    'The body is passed to the payment service as it is. A definition whose connector has no sessions answers 400. A provider that fails technically answers 502 (504 on a timeout); a provider that refuses answers 200 with status `failed`.',
  status: 200,
  params: PaymentServiceDefinitionParams,
  body: CreateSessionBody,
  bodyOptional: true,
  response: CreateSessionSchema,
  handler: ({ ctx, params, body }) => create(ctx, params.payment_service_definition_id, body),
});
