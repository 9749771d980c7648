import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { TransactionCancelSchema } from '../transaction.schema.ts';
import { cancelTransaction as run } from '../void/void-transaction.service.ts';

export const cancelTransaction = defineRoute({
  operationId: 'cancelTransaction',
  method: 'POST',
  url: '/transactions/:transaction_id/cancel',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Cancel a transaction that is still processing or awaiting buyer approval',
  status: 200,
  params: TransactionParams,
  // Its change and its answer are one database transaction, stored with the idempotency key: a
  // retry after a crash replays the answer (no provider call to repeat).
  response: TransactionCancelSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
