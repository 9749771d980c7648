import { defineRoute } from '../../../http/define-route.ts';
import {
  PaymentServiceTokenCreateBody,
  PaymentServiceTokenSchema,
  PaymentServiceTokensParams,
} from '../payment-service-tokens.schemas.ts';
import { createPaymentServiceToken } from '../payment-service-tokens.service.ts';

export const createPaymentMethodPaymentServiceToken = defineRoute({
  operationId: 'createPaymentMethodPaymentServiceToken',
  method: 'POST',
  url: '/payment-methods/:payment_method_id/payment-service-tokens',
  scope: 'payment-methods.write',
  tags: ['payment-service-tokens'],
  summary: 'Create a gateway (payment service) token for a stored card',
  description:
    'Sends the stored card to the payment service, which must be active and have payment_method_tokenization_enabled, and stores the token it returns (encrypted). ' +
    'The answer carries the outcome: succeeded (with the token), buyer_approval_required (with approval_url), failed, or processing when the provider did not answer in time. ' +
    'One token per payment method and payment service: while one exists (other than failed), this answers 409 with its id in resource_id; a failed one is replaced.',
  status: 201,
  params: PaymentServiceTokensParams,
  body: PaymentServiceTokenCreateBody,
  response: PaymentServiceTokenSchema,
  handler: ({ ctx, params, body }) => createPaymentServiceToken(ctx, params.payment_method_id, body),
});
