import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { CreateTransactionBody } from '../create-transaction.schema.ts';
import { TransactionSchema } from '../transaction.schema.ts';
import { createTransaction as run } from '../create/create-transaction.service.ts';
import { resumeTransaction } from '../create/resume-transaction.ts';

/** The client's address: the first entry of X-Forwarded-For, as the merchant's server forwards it. */
const buyerIp = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim().slice(0, 64) || null;

export const createTransaction = defineRoute({
  operationId: 'createTransaction',
  method: 'POST',
  url: '/transactions',
  scope: 'transactions.write',
  tags: ['transactions'],
  summary: 'Create a transaction (authorize, or authorize and capture)',
  description:
    'Routes to the first active payment service (by position) that accepts the method, currency and country, unless payment_service_id forces one. The connector is called outside any database transaction; a declined or failed authorization is still 201 with its status. A connector timeout leaves the transaction processing until reconciliation (or sync) settles it. ' +
    "An embed token acts for the buyer it pins: every buyer field of the body must be that buyer (403) and a stored card must be that buyer's (404); without a buyer pin it may name no stored buyer and pay with no stored card (403).",
  status: 201,
  body: CreateTransactionBody,
  embed: true,
  enumerationLimited: true,
  headers: {
    'x-forwarded-for': Type.Optional(
      Type.String({ maxLength: 1000, description: 'Buyer IP address (kept for anti-fraud)' }),
    ),
  },
  response: TransactionSchema,
  // A retry whose first request died after recording the transaction gets that transaction, not a second charge.
  resume: resumeTransaction,
  handler: ({ ctx, body, headers }) => run(ctx, body, buyerIp(headers['x-forwarded-for'])),
});
