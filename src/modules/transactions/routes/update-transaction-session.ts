import { defineRoute } from '../../../http/define-route.ts';
import { TransactionParams } from '../create-transaction.schema.ts';
import {
  TransactionSessionQuery,
  TransactionSessionSchema,
  UpdateTransactionSessionBody,
} from '../session/transaction-session.schema.ts';
import { updateTransactionSession as run } from '../session/transaction-session.service.ts';

/** Called by the buyer's front end: the transaction's `session_token` is the credential (no bearer). */
export const updateTransactionSession = defineRoute({
  operationId: 'updateTransactionSession',
  method: 'POST',
  url: '/transactions/:transaction_id/session',
  scope: null,
  credential: 'transaction-session',
  idempotent: false,
  tags: ['transactions'],
  summary: 'Get or update the client session of a transaction',
  description:
    "Authenticated by `?token=`, the transaction's `session_token` (401 when missing, wrong, of another transaction or expired; 50 calls a minute per transaction). " +
    "A transaction carries one while it waits for its buyer at a payment service's page or SDK, until its `approval_expires_at`. " +
    "Answers the connector's client session; `payload` updates it where the connector allows that (400 otherwise; the sandbox allows none).",
  status: 200,
  params: TransactionParams,
  querystring: TransactionSessionQuery,
  body: UpdateTransactionSessionBody,
  bodyOptional: true,
  response: TransactionSessionSchema,
  handler: ({ ctx, params, body }) => run(ctx, params.transaction_id, body),
});
