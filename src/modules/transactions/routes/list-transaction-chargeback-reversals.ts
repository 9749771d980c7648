import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionChargebackReversals as run } from '../chargebacks/chargebacks.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { ChargebackReversalsSchema } from '../transaction-reads.schema.ts';

export const listTransactionChargebackReversals = defineRoute({
  operationId: 'listTransactionChargebackReversals',
  method: 'GET',
  url: '/transactions/:transaction_id/chargeback-reversals',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List the chargeback reversals of a transaction',
  description:
    "The chargeback reversal lines of the payment service's settlement reports, oldest first, all of them (no paging). `amount` is positive: what the reversal gave back.",
  status: 200,
  params: TransactionParams,
  response: ChargebackReversalsSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
