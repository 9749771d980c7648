import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionActions as run } from '../transactions.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { TransactionActionsSchema } from '../transaction-reads.schema.ts';

export const listTransactionActions = defineRoute({
  operationId: 'listTransactionActions',
  method: 'GET',
  url: '/transactions/:transaction_id/actions',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List the routing decisions of a transaction',
  status: 200,
  params: TransactionParams,
  response: TransactionActionsSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
