import { defineRoute } from '../../../http/define-route.ts';
import { PaymentServiceParams, PaymentServiceSchema, UpdatePaymentServiceBody } from '../payment-services.schemas.ts';
import { updatePaymentService } from '../payment-services.service.ts';

/**
 * `PUT /payment-services/{id}` changes a service. Its operationId is the client library's
 * (`create_payment_service`; see update-payment-service.ts for why the names are swapped).
 */
export const createPaymentService = defineRoute({
  operationId: 'createPaymentService',
  method: 'PUT',
  url: '/payment-services/:payment_service_id',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Change a configured payment service (partial update)',
  description:
    'Fields that are not sent, or sent as null, keep their value; `merchant_profile: null` clears the profile and a null scheme entry removes that scheme. `fields` and `reporting_fields` merge key by key (an empty value removes an optional field) and the merged credentials are verified again. A deleted service answers 404.',
  status: 200,
  params: PaymentServiceParams,
  body: UpdatePaymentServiceBody,
  bodyOptional: true,
  response: PaymentServiceSchema,
  handler: ({ ctx, params, body }) => updatePaymentService(ctx, params.payment_service_id, body),
});
