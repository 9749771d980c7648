import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { TransactionSchema } from '../transaction.schema.ts';
import { getTransaction as run } from '../transactions.service.ts';

export const getTransaction = defineRoute({
  operationId: 'getTransaction',
  method: 'GET',
  url: '/transactions/:transaction_id',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'Read a transaction',
  status: 200,
  params: TransactionParams,
  response: TransactionSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
