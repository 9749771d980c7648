import { defineRoute } from '../../../http/define-route.ts';
import {
  ListPaymentServiceDefinitionsQuery,
  PaymentServiceDefinitionsSchema,
} from '../payment-service-definitions.schemas.ts';
import { listPaymentServiceDefinitions as list } from '../payment-service-definitions.service.ts';

export const listPaymentServiceDefinitions = defineRoute({
  operationId: 'listPaymentServiceDefinitions',
  method: 'GET',
  url: '/payment-service-definitions',
  scope: 'payment-service-definitions.read',
  merchantScoped: false,
  tags: ['payment-service-definitions'],
  summary: 'List the payment service definitions (the connector catalogue), by id',
  description:
    'Instance-wide: the same catalogue for every merchant account, so no merchant account header. In production the sandbox definitions (mock-card, mock-paybybank) are not listed.',
  status: 200,
  querystring: ListPaymentServiceDefinitionsQuery,
  response: PaymentServiceDefinitionsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
