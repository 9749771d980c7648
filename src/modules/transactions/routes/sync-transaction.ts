import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { TransactionSchema } from '../transaction.schema.ts';
import { syncTransaction as run } from '../reconcile/reconcile.service.ts';

export const syncTransaction = defineRoute({
  operationId: 'syncTransaction',
  method: 'POST',
  url: '/transactions/:transaction_id/sync',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Refresh the transaction status from the payment service',
  description:
    'Asks the payment service about every call of the transaction that has no final answer (a timeout, a pending capture, void or refund) and applies the answers. A payment service without a status query answers 400.',
  status: 200,
  params: TransactionParams,
  idempotent: false,
  response: TransactionSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
