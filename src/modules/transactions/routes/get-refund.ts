import { defineRoute } from '../../../http/define-route.ts';
import { getRefund as run } from '../transactions.service.ts';
import { RefundIdParams, RefundSchema } from '../refund.schema.ts';

export const getRefund = defineRoute({
  operationId: 'getRefund',
  method: 'GET',
  url: '/refunds/:refund_id',
  scope: 'transactions.read',
  tags: ['refunds'],
  summary: 'Read a refund by its id',
  status: 200,
  params: RefundIdParams,
  response: RefundSchema,
  handler: ({ ctx, params }) => run(ctx, params.refund_id),
});
