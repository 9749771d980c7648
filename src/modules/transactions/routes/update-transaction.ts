import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams, UpdateTransactionBody } from '../create-transaction.schema.ts';
import { TransactionSchema } from '../transaction.schema.ts';
import { updateTransaction as run } from '../transactions.service.ts';

export const updateTransaction = defineRoute({
  operationId: 'updateTransaction',
  method: 'PUT',
  url: '/transactions/:transaction_id',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: "Change a transaction's external identifier, metadata or connection options",
  description: 'metadata, when given, replaces the stored metadata whole.',
  status: 200,
  params: TransactionParams,
  body: UpdateTransactionBody,
  response: TransactionSchema,
  handler: ({ ctx, params, body }) => run(ctx, params.transaction_id, body),
});
