import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import { incrementAuthorization as run, resumeIncrement } from '../increment/increment-authorization.service.ts';
import { IncrementAuthorizationBody, TransactionAuthorizationIncrementSchema } from '../transaction.schema.ts';

export const incrementTransactionAuthorization = defineRoute({
  operationId: 'incrementTransactionAuthorization',
  method: 'POST',
  url: '/transactions/:transaction_id/authorization/increment',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Raise the authorized amount of a transaction',
  description:
    '`amount` is the increase, not the new total. The payment service is asked to raise the authorization; `authorized_amount` grows only by an approved increase. ' +
    'Only an authorization still open (`authorization_succeeded`, nothing captured in full) on a connection with incremental authorization enabled can be raised (otherwise 400). ' +
    'A timeout answers `failed` with code `timeout`; reconciliation applies the increase later if the payment service approved it.',
  status: 200,
  params: TransactionParams,
  body: IncrementAuthorizationBody,
  response: TransactionAuthorizationIncrementSchema,
  // A retry whose first request died after recording its increase answers for it, never asks the provider again.
  resume: resumeIncrement,
  handler: ({ ctx, params, body }) => run(ctx, params.transaction_id, body),
});
