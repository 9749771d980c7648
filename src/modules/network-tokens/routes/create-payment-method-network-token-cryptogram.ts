import { defineRoute } from '../../../http/define-route.ts';
import { CryptogramCreateBody, CryptogramSchema, NetworkTokenParams } from '../network-tokens.schemas.ts';
import { createNetworkTokenCryptogram } from '../network-tokens.service.ts';

export const createPaymentMethodNetworkTokenCryptogram = defineRoute({
  operationId: 'createPaymentMethodNetworkTokenCryptogram',
  method: 'POST',
  url: '/payment-methods/:payment_method_id/network-tokens/:network_token_id/cryptogram',
  scope: 'payment-methods.write',
  tags: ['network-tokens'],
  summary: 'Provision a one-time cryptogram for a network token',
  description:
    'One cryptogram per transaction (28 characters of base64). Only an active token gets one: a suspended or deleted token answers 400.',
  status: 201,
  params: NetworkTokenParams,
  body: CryptogramCreateBody,
  response: CryptogramSchema,
  handler: ({ ctx, params, body }) =>
    createNetworkTokenCryptogram(ctx, params.payment_method_id, params.network_token_id, body),
});
