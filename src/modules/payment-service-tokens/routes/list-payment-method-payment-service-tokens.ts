import { defineRoute } from '../../../http/define-route.ts';
import {
  ListPaymentServiceTokensQuery,
  PaymentServiceTokensParams,
  PaymentServiceTokensSchema,
} from '../payment-service-tokens.schemas.ts';
import { listPaymentServiceTokens } from '../payment-service-tokens.service.ts';

export const listPaymentMethodPaymentServiceTokens = defineRoute({
  operationId: 'listPaymentMethodPaymentServiceTokens',
  method: 'GET',
  url: '/payment-methods/:payment_method_id/payment-service-tokens',
  scope: 'payment-methods.read',
  tags: ['payment-service-tokens'],
  summary: 'List the gateway tokens of a payment method',
  description:
    'Newest first, at most 100 (one per payment service). `payment_service_id` restricts the list to one payment service.',
  status: 200,
  params: PaymentServiceTokensParams,
  querystring: ListPaymentServiceTokensQuery,
  response: PaymentServiceTokensSchema,
  handler: ({ ctx, params, query }) => listPaymentServiceTokens(ctx, params.payment_method_id, query),
});
