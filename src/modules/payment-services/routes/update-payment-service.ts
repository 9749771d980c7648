import { defineRoute } from '../../../http/define-route.ts';
import { PaymentServiceParams, PaymentServiceSchema, UpdatePaymentServiceBody } from '../payment-services.schemas.ts';
import { updatePaymentService as updateService } from '../payment-services.service.ts';

/**
 * `PUT /payment-services/{id}` changes a service. The original API's client library calls this
 * operation `create_payment_service` (see create-payment-service.ts).
 */
export const updatePaymentService = defineRoute({
  operationId: 'updatePaymentService',
  method: 'PUT',
  url: '/payment-services/:payment_service_id',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: 'Change a configured payment service (partial update)',
  description:
    'Fields that are not sent, or sent as null, keep their value; `merchant_profile: null` clears the profile and a null scheme entry removes that scheme. `fields` and `reporting_fields` merge key by key (an empty value removes an optional field) and the merged credentials are verified again. A deleted service answers 404.\n\n' +
    "The original API's client libraries name this operation `create_payment_service` (`createPaymentService`): they swap the names of create and update.",
  status: 200,
  params: PaymentServiceParams,
  body: UpdatePaymentServiceBody,
  bodyOptional: true,
  response: PaymentServiceSchema,
  handler: ({ ctx, params, body }) => updateService(ctx, params.payment_service_id, body),
});
