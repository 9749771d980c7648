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
  description: 'Any other starting status answers 400 naming both states. This operation takes no idempotency-key: a stored response would store the token value.',
  status: 200,
  // The idempotency store keeps responses in clear for 24 h, and this one holds the token value.
  idempotent: false,
  params: NetworkTokenParams,
  response: NetworkTokenSchema,
  handler: ({ ctx, params }) => changeNetworkTokenStatus(ctx, params.payment_method_id, params.network_token_id, 'suspended'),
});
