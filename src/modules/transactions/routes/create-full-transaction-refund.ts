import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { refundAll as run, resumeRefundAll } from '../refund/refund-transaction.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { RefundAllBody, RefundsSchema } from '../refund.schema.ts';

export const createFullTransactionRefund = defineRoute({
  operationId: 'createFullTransactionRefund',
  method: 'POST',
  url: '/transactions/:transaction_id/refunds/all',
  scope: 'transactions.write',
  tags: ['refunds'],
  summary: 'Refund every instrument used on a transaction',
  description: 'Answers the list of refunds created (empty when nothing is left to refund).',
  status: 201,
  params: TransactionParams,
  body: Type.Union([RefundAllBody, Type.Null()]),
  bodyOptional: true,
  response: RefundsSchema,
  // A retry whose first request died after recording its refund gets that refund, not a second one.
  resume: resumeRefundAll,
  handler: ({ ctx, params, body }) => run(ctx, params.transaction_id, body),
});
