import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionSettlements as run } from '../transactions.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { SettlementsSchema } from '../transaction-reads.schema.ts';

export const listTransactionSettlements = defineRoute({
  operationId: 'listTransactionSettlements',
  method: 'GET',
  url: '/transactions/:transaction_id/settlements',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List the settlement records of a transaction',
  status: 200,
  params: TransactionParams,
  response: SettlementsSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
