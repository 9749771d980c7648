import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionChargebacks as run } from '../chargebacks/chargebacks.service.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { ChargebacksSchema } from '../transaction-reads.schema.ts';

export const listTransactionChargebacks = defineRoute({
  operationId: 'listTransactionChargebacks',
  method: 'GET',
  url: '/transactions/:transaction_id/chargebacks',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List the chargebacks of a transaction',
  description:
    "The chargeback lines of the payment service's settlement reports, oldest first, all of them (no paging). `amount` is positive: what the chargeback took back.",
  status: 200,
  params: TransactionParams,
  response: ChargebacksSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
