import { defineRoute } from '../../../http/define-route.ts';
import { ListPaymentServicesQuery, PaymentServicesSchema } from '../payment-services.schemas.ts';
import { listPaymentServices as list } from '../payment-services.service.ts';

export const listPaymentServices = defineRoute({
  operationId: 'listPaymentServices',
  method: 'GET',
  url: '/payment-services',
  scope: 'payment-services.read',
  tags: ['payment-services'],
  summary: 'List configured payment services, newest first',
  description:
    '`deleted=true` lists only deleted services; by default only services that are not deleted. `method` keeps one method.',
  status: 200,
  querystring: ListPaymentServicesQuery,
  response: PaymentServicesSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
