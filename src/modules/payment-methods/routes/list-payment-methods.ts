import { defineRoute } from '../../../http/define-route.ts';
import { ListPaymentMethodsQuery, PaymentMethodsSchema } from '../payment-methods.schemas.ts';
import { listPaymentMethods as list } from '../payment-methods.service.ts';

export const listPaymentMethods = defineRoute({
  operationId: 'listPaymentMethods',
  method: 'GET',
  url: '/payment-methods',
  scope: 'payment-methods.read',
  tags: ['payment-methods'],
  summary: 'List stored payment methods, newest first',
  status: 200,
  querystring: ListPaymentMethodsQuery,
  response: PaymentMethodsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
