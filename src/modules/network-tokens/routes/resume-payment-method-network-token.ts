import { defineRoute } from '../../../http/define-route.ts';
import { NetworkTokenParams, NetworkTokenSchema } from '../network-tokens.schemas.ts';
import { changeNetworkTokenStatus } from '../network-tokens.service.ts';

export const resumePaymentMethodNetworkToken = defineRoute({
  operationId: 'resumePaymentMethodNetworkToken',
  method: 'POST',
  url: '/payment-methods/:payment_method_id/network-tokens/:network_token_id/resume',
  scope: 'payment-methods.write',
  tags: ['network-tokens'],
  summary: 'Resume a suspended network token (suspended → active)',
  description: 'Any other starting status answers 400 naming both states.',
  status: 200,
  params: NetworkTokenParams,
  response: NetworkTokenSchema,
  handler: ({ ctx, params }) =>
    changeNetworkTokenStatus(ctx, params.payment_method_id, params.network_token_id, 'active'),
});
