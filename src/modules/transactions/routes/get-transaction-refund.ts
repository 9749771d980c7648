import { defineRoute } from '../../../http/define-route.ts';
import { getTransactionRefund as run } from '../transactions.service.ts';
import { RefundParams, RefundSchema } from '../refund.schema.ts';

export const getTransactionRefund = defineRoute({
  operationId: 'getTransactionRefund',
  method: 'GET',
  url: '/transactions/:transaction_id/refunds/:refund_id',
  scope: 'transactions.read',
  tags: ['refunds'],
  summary: 'Read one refund of a transaction',
  status: 200,
  params: RefundParams,
  response: RefundSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id, params.refund_id),
});
