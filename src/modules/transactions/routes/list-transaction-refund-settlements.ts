import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionRefundSettlements as run } from '../transactions.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { RefundSettlementsSchema } from '../transaction-reads.schema.ts';

export const listTransactionRefundSettlements = defineRoute({
  operationId: 'listTransactionRefundSettlements',
  method: 'GET',
  url: '/transactions/:transaction_id/refund-settlements',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: "List the settlement records of a transaction's refunds",
  status: 200,
  params: TransactionParams,
  response: RefundSettlementsSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
