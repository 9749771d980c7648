import { defineRoute } from '../../../http/define-route.ts';
import {
  PaymentServiceDefinitionParams,
  PaymentServiceDefinitionSchema,
} from '../payment-service-definitions.schemas.ts';
import { getPaymentServiceDefinition as get } from '../payment-service-definitions.service.ts';

export const getPaymentServiceDefinition = defineRoute({
  operationId: 'getPaymentServiceDefinition',
  method: 'GET',
  url: '/payment-service-definitions/:payment_service_definition_id',
  scope: 'payment-service-definitions.read',
  merchantScoped: false,
  tags: ['payment-service-definitions'],
  summary: 'Read one payment service definition',
  status: 200,
  params: PaymentServiceDefinitionParams,
  response: PaymentServiceDefinitionSchema,
  handler: ({ ctx, params }) => get(ctx, params.payment_service_definition_id),
});
