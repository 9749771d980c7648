import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionEvents as run } from '../transactions.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { ListTransactionEventsQuery, TransactionEventsSchema } from '../transaction-reads.schema.ts';

export const listTransactionEvents = defineRoute({
  operationId: 'listTransactionEvents',
  method: 'GET',
  url: '/transactions/:transaction_id/events',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List the processing events of a transaction, newest first',
  status: 200,
  params: TransactionParams,
  querystring: ListTransactionEventsQuery,
  response: TransactionEventsSchema,
  handler: ({ ctx, params, query }) => run(ctx, params.transaction_id, query),
});
