import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { captureTransaction as run, resumeCapture } from '../capture/capture-transaction.service.ts';
import { CaptureTransactionBody, TransactionParams } from '../create-transaction.schema.ts';
import { TransactionCaptureSchema, TransactionSchema } from '../transaction.schema.ts';
import { PreferHeader, prefersTransaction } from './prefer.ts';

export const captureTransaction = defineRoute({
  operationId: 'captureTransaction',
  method: 'POST',
  url: '/transactions/:transaction_id/capture',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Capture an authorized transaction, fully or partly',
  description:
    'Default response: the transaction-capture record (status, code, raw codes, transaction); `prefer: resource=transaction` returns the full transaction. ' +
    "amount omitted: the rest of the authorized amount. final false needs multi-capture on the payment service connection; over-capture follows the merchant account's allowance.",
  status: 200,
  params: TransactionParams,
  body: CaptureTransactionBody,
  bodyOptional: true,
  headers: { prefer: PreferHeader },
  response: Type.Union([TransactionCaptureSchema, TransactionSchema]),
  // A retry whose first request died after recording its capture answers for that capture, never captures again.
  resume: (ctx, attemptId, { headers }) => resumeCapture(ctx, attemptId, prefersTransaction(headers)),
  handler: ({ ctx, params, body, headers }) => run(ctx, params.transaction_id, body ?? {}, prefersTransaction(headers)),
});
