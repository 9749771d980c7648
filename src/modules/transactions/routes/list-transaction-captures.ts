import { defineRoute } from '../../../http/define-route.ts';
import { listTransactionCaptures as run } from '../transactions.service.ts';
import { CapturesSchema } from '../capture.schema.ts';
import { TransactionParams } from '../create-transaction.schema.ts';

export const listTransactionCaptures = defineRoute({
  operationId: 'listTransactionCaptures',
  method: 'GET',
  url: '/transactions/:transaction_id/captures',
  scope: 'transactions.read',
  tags: ['transactions'],
  summary: 'List the captures of a transaction, newest first',
  status: 200,
  params: TransactionParams,
  response: CapturesSchema,
  handler: ({ ctx, params }) => run(ctx, params.transaction_id),
});
