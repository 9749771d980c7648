import { defineRoute } from '../../../http/define-route.ts';
import { ListTransactionsQuery, TransactionSummariesSchema } from '../list/list-transactions.schema.ts';
import { listTransactions as run } from '../list/list-transactions.service.ts';

export const listTransactions = defineRoute({
  operationId: 'listTransactions',
  method: 'GET',
  url: '/transactions',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List transactions, newest update first, with filters',
  description:
    'Array filters match any of their values and arrive as repeated keys. `search` matches exactly the id, reconciliation id, external identifier, ' +
    'payment service transaction id, buyer external identifier or buyer e-mail (ignoring case); `buyer_search` matches exactly the buyer display name ' +
    '(ignoring case), external identifier or e-mail (ignoring case). Buyer personal data is masked without buyers.billing-details.read.',
  status: 200,
  querystring: ListTransactionsQuery,
  response: TransactionSummariesSchema,
  handler: ({ ctx, query }) => run(ctx, query),
});
