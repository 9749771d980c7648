import { defineRoute } from '../../../http/define-route.ts';
import { getTransactionRefundSettlement as run } from '../transactions.service.ts';
import { RefundSettlementSchema, SettlementParams } from '../transaction-reads.schema.ts';

export const getTransactionRefundSettlement = defineRoute({
  operationId: 'getTransactionRefundSettlement',
  method: 'GET',
  url: '/transactions/:transaction_id/refund-settlements/:settlement_id',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: "Read one settlement record of a transaction's refund",
  status: 200,
  params: SettlementParams,
  response: RefundSettlementSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id, params.settlement_id),
});
