import { defineRoute } from '../../../http/define-route.ts';
import {
  NetworkTokenCreateBody,
  NetworkTokenSchema,
  PaymentMethodNetworkTokensParams,
} from '../network-tokens.schemas.ts';
import { createNetworkToken } from '../network-tokens.service.ts';

export const createPaymentMethodNetworkToken = defineRoute({
  operationId: 'createPaymentMethodNetworkToken',
  method: 'POST',
  url: '/payment-methods/:payment_method_id/network-tokens',
  scope: 'payment-methods.write',
  tags: ['network-tokens'],
  summary: 'Provision a network token for a stored card',
  description:
    "Issues a token from the built-in simulated token service (a Luhn-valid number of the card's scheme in a token BIN range). " +
    'One live token per payment method: while one is active or suspended, this answers 409 with its id in resource_id. ' +
    "In production it answers 403: unless NETWORK_TOKENS_API_PROVISIONING=true, and then because the token service is the sandbox's simulation (docs/production.md).",
  status: 201,
  params: PaymentMethodNetworkTokensParams,
  body: NetworkTokenCreateBody,
  response: NetworkTokenSchema,
  handler: ({ ctx, params, body }) => createNetworkToken(ctx, params.payment_method_id, body),
});
