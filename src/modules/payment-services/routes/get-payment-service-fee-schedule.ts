import { defineRoute } from '../../../http/define-route.ts';
import { FeeScheduleSchema } from '../fee-schedule.schemas.ts';
import { getFeeSchedule } from '../fee-schedule.service.ts';
import { PaymentServiceParams } from '../payment-services.schemas.ts';

export const getPaymentServiceFeeSchedule = defineRoute({
  operationId: 'getPaymentServiceFeeSchedule',
  method: 'GET',
  url: '/payment-services/:payment_service_id/fee-schedule',
  scope: 'payment-services.read',
  tags: ['payment-services'],
  summary: "Read a payment service's fee schedule",
  description:
    'The fees least-cost routing expects this service to charge (docs/routing.md, "Least-cost routing"). A service whose schedule was never set answers `entries: []` and `updated_at: null`; a deleted service answers 404.',
  status: 200,
  params: PaymentServiceParams,
  response: FeeScheduleSchema,
  handler: ({ ctx, params }) => getFeeSchedule(ctx, params.payment_service_id),
});
