import { defineRoute } from '../../../http/define-route.ts';
import { VerifyCredentialsBody, VerifyCredentialsResult } from '../payment-services.schemas.ts';
import { verifyPaymentServiceCredentials as verify } from '../payment-services.service.ts';

export const verifyPaymentServiceCredentials = defineRoute({
  operationId: 'verifyPaymentServiceCredentials',
  method: 'POST',
  url: '/payment-services/verify',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Check payment service credentials without saving them',
  description:
    'Answers 200 with an empty object when the credentials pass, 400 naming each field at fault otherwise. With `payment_service_id`, the fields sent are merged over the stored ones first.',
  status: 200,
  body: VerifyCredentialsBody,
  response: VerifyCredentialsResult,
  handler: ({ ctx, body }) => verify(ctx, body),
});
