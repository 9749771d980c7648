import { defineRoute } from '../../../http/define-route.ts';
import { NetworkTokenParams } from '../network-tokens.schemas.ts';
import { deleteNetworkToken } from '../network-tokens.service.ts';

export const deletePaymentMethodNetworkToken = defineRoute({
  operationId: 'deletePaymentMethodNetworkToken',
  method: 'DELETE',
  url: '/payment-methods/:payment_method_id/network-tokens/:network_token_id',
  scope: 'payment-methods.write',
  tags: ['network-tokens'],
  summary: 'Delete a network token',
  description:
    'The token becomes deleted and its value is destroyed; it stays listed. Deleting a deleted token answers 400.',
  status: 204,
  params: NetworkTokenParams,
  response: null,
  handler: ({ ctx, params }) => deleteNetworkToken(ctx, params.payment_method_id, params.network_token_id),
});
