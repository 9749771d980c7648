import { defineRoute } from '../../../http/define-route.ts';
import { listBuyerPaymentMethods as list } from '../buyer-payment-methods.service.ts';
import { ListBuyerPaymentMethodsQuery, PaymentMethodSummariesSchema } from '../payment-methods.schemas.ts';

export const listBuyerPaymentMethods = defineRoute({
  operationId: 'listBuyerPaymentMethods',
  method: 'GET',
  url: '/buyers/payment-methods',
  // The resource is stored payment methods, so their read scope (not buyers.read) guards it.
  scope: 'payment-methods.read',
  tags: ['payment-methods', 'buyers'],
  summary: "List a buyer's usable stored payment methods, by last use",
  description:
    'The buyer is chosen by `buyer_id` or `buyer_external_identifier`. Open to embed tokens, which see only the buyer they pin.',
  status: 200,
  embed: true,
  querystring: ListBuyerPaymentMethodsQuery,
  response: PaymentMethodSummariesSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
