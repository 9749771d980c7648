import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionRefunds as run } from '../transactions.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { RefundsSchema } from '../refund.schema.ts';

export const listTransactionRefunds = defineRoute({
  operationId: 'listTransactionRefunds',
  method: 'GET',
  url: '/transactions/:transaction_id/refunds',
  scope: 'transactions.read',
  tags: ['refunds'],
  summary: 'List the refunds of a transaction',
  status: 200,
  params: TransactionParams,
  response: RefundsSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
