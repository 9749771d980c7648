import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { TransactionSchema, TransactionVoidSchema } from '../transaction.schema.ts';
import { resumeVoid, voidTransaction as run } from '../void/void-transaction.service.ts';
import { PreferHeader, prefersTransaction } from './prefer.ts';

export const voidTransaction = defineRoute({
  operationId: 'voidTransaction',
  method: 'POST',
  url: '/transactions/:transaction_id/void',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Void an authorized, not yet captured transaction',
  description: 'Returns the transaction-void record; send `prefer: resource=transaction` for the full transaction.',
  status: 200,
  params: TransactionParams,
  headers: { prefer: PreferHeader },
  response: Type.Union([TransactionVoidSchema, TransactionSchema]),
  // A retry whose first request died after recording its void answers for that void, never voids again.
  resume: (ctx, attemptId, { headers }) => resumeVoid(ctx, attemptId, prefersTransaction(headers)),
  handler: ({ ctx, params, headers }) => run(ctx, params.transaction_id, prefersTransaction(headers)),
});
