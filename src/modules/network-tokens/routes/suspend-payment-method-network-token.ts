import { defineRoute } from '../../../http/define-route.ts';
import { NetworkTokenParams, NetworkTokenSchema } from '../network-tokens.schemas.ts';
import { changeNetworkTokenStatus } from '../network-tokens.service.ts';

export const suspendPaymentMethodNetworkToken = defineRoute({
  operationId: 'suspendPaymentMethodNetworkToken',
  method: 'POST',
  url: '/payment-methods/:payment_method_id/network-tokens/:network_token_id/suspend',
  scope: 'payment-methods.write',
  tags: ['network-tokens'],
  summary: 'Suspend a network token (active → suspended)',
  description: 'Any other starting status answers 400 naming both states.',
  status: 200,
  params: NetworkTokenParams,
  response: NetworkTokenSchema,
  handler: ({ ctx, params }) =>
    changeNetworkTokenStatus(ctx, params.payment_method_id, params.network_token_id, 'suspended'),
});
