import { defineRoute } from '../../../http/define-route.ts';
import { NetworkTokensSchema, PaymentMethodNetworkTokensParams } from '../network-tokens.schemas.ts';
import { listNetworkTokens } from '../network-tokens.service.ts';

export const listPaymentMethodNetworkTokens = defineRoute({
  operationId: 'listPaymentMethodNetworkTokens',
  method: 'GET',
  url: '/payment-methods/:payment_method_id/network-tokens',
  scope: 'payment-methods.read',
  tags: ['network-tokens'],
  summary: 'List the network tokens of a payment method, newest first',
  description: 'The live token and deleted ones (their value destroyed), at most the 100 newest.',
  status: 200,
  params: PaymentMethodNetworkTokensParams,
  response: NetworkTokensSchema,
  handler: ({ ctx, params }) => listNetworkTokens(ctx, params.payment_method_id),
});
