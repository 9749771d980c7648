import { defineRoute } from '../../../http/define-route.ts';
import { getTransactionSettlement as run } from '../transactions.service.ts';
import { SettlementParams, SettlementSchema } from '../transaction-reads.schema.ts';

export const getTransactionSettlement = defineRoute({
  operationId: 'getTransactionSettlement',
  method: 'GET',
  url: '/transactions/:transaction_id/settlements/:settlement_id',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'Read one settlement record of a transaction',
  status: 200,
  params: SettlementParams,
  response: SettlementSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id, params.settlement_id),
});
