import { defineRoute } from '../../../http/define-route.ts';
import { refundTransaction as run, resumeRefund } from '../refund/refund-transaction.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { CreateRefundBody, RefundSchema } from '../refund.schema.ts';

export const createTransactionRefund = defineRoute({
  operationId: 'createTransactionRefund',
  method: 'POST',
  url: '/transactions/:transaction_id/refunds',
  scope: 'transactions.write',
  tags: ['refunds'],
  summary: 'Refund a transaction, fully or partly',
  description:
    'amount omitted: everything captured and not yet refunded. The sum of refunds never exceeds the captured amount.',
  status: 201,
  params: TransactionParams,
  body: CreateRefundBody,
  bodyOptional: true,
  response: RefundSchema,
  // A retry whose first request died after recording its refund gets that refund, not a second one.
  resume: resumeRefund,
  handler: ({ ctx, params, body }) => run(ctx, params.transaction_id, body),
});
