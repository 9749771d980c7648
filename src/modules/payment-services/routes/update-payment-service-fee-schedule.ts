import { defineRoute } from '../../../http/define-route.ts';
import { FeeScheduleSchema, PutFeeScheduleBody } from '../fee-schedule.schemas.ts';
import { putFeeSchedule } from '../fee-schedule.service.ts';
import { PaymentServiceParams } from '../payment-services.schemas.ts';

export const updatePaymentServiceFeeSchedule = defineRoute({
  operationId: 'updatePaymentServiceFeeSchedule',
  method: 'PUT',
  url: '/payment-services/:payment_service_id/fee-schedule',
  scope: 'payment-services.write',
  tags: ['payment-services'],
  summary: "Replace a payment service's fee schedule",
  description:
    "The whole schedule is replaced; the most specific entry matching a transaction (most match fields set; between as many, scheme, then card type, then country, then currency) gives its expected fee: amount × percent + fixed fee, exact in minor units. Two entries with the same match fields, a percent over 100 and a fixed fee in another currency than its entry's are refused (400). An empty list removes the schedule. Audited (`resource_type` `payment-service-fee-schedule`); routing uses it at once.",
  status: 200,
  params: PaymentServiceParams,
  body: PutFeeScheduleBody,
  response: FeeScheduleSchema,
  handler: ({ ctx, params, body }) => putFeeSchedule(ctx, params.payment_service_id, body),
});
