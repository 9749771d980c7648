import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { AttemptRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import type { IncrementOutcome } from '../../../connectors/connector.ts';
import { AppError, invalidField, notFound } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import {
  attemptPatch,
  callConnector,
  connectorOfTransaction,
  paymentHint,
  UNANSWERED,
  type BoundConnector,
  type CallResult,
} from '../connector-call.ts';
import { resumeAttempt } from '../resumed-operation.ts';
import { nextCheckAt, type Applied } from '../outcomes.ts';
import { attemptEvent } from '../transaction-events.ts';
import type { IncrementAuthorizationBody, OperationResult } from '../transaction.schema.ts';
import * as repo from '../transactions.repo.ts';
import { emitTransaction } from '../webhook-events.ts';
import { transactionResource } from '../transaction-view.ts';
import { incrementPatch } from './increment-outcome.ts';

const MAX_AMOUNT = 99_999_999;

/** Why this transaction's authorization cannot be raised on this connection, or null. */
function refusal(row: TransactionRow, bound: BoundConnector): string | null {
  if (row.status !== 'authorization_succeeded' || row.capture_closed)
    return `Only an open authorization can be raised; this transaction is ${row.status}${row.capture_closed ? ' and closed for capture' : ''}`;
  const { connector, credentials } = bound;
  if (!connector.definition.capabilities.incrementalAuthorization || !connector.incrementAuthorization)
    return `The payment service's connector (${connector.definition.id}) cannot raise an authorization`;
  if (!connector.captureRules(credentials).incrementalAuthorization)
    return 'Incremental authorization is not enabled on this payment service connection (its incremental_authorization_enabled field)';
  return null;
}

/** Phase 1: lock, check, record the `increment` attempt (`in_flight`, its id the connector's idempotency key), commit. */
async function record(
  ctx: RequestContext,
  id: string,
  amount: number,
): Promise<{ row: TransactionRow; attempt: AttemptRow; bound: BoundConnector }> {
  if (amount === 0) throw invalidField('body', '/amount', 'amount is the increase and must be greater than 0');
  return withTransaction(ctx.deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('transaction', id);
    const bound = await connectorOfTransaction(tx, ctx.deps, row);
    const problem = refusal(row, bound);
    if (problem) throw new AppError('bad_request', problem);
    if (row.authorized_amount + amount > MAX_AMOUNT)
      throw invalidField(
        'body',
        '/amount',
        `the authorization would exceed ${MAX_AMOUNT} (it is ${row.authorized_amount})`,
      );
    const attempt = await repo.insertAttempt(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      transaction_id: id,
      operation: 'increment',
      status: 'in_flight',
      amount,
      payment_service_id: row.payment_service_id,
      next_check_at: nextCheckAt(0, new Date()),
    });
    // Committed with the attempt: a retry after a crash resumes this increase instead of asking again.
    if (ctx.idempotency) await ctx.idempotency.bindResource(tx, attempt.id);
    return { row, attempt, bound };
  });
}

/**
 * `POST /transactions/{id}/authorization/increment`: raises the authorization by `amount` at the
 * provider; `authorized_amount` (and what may be captured) grows only by an approved increase. A
 * timeout answers `failed` with code `timeout`: the attempt stays unknown and reconciliation
 * applies the increase if the provider did approve it.
 */
export async function incrementAuthorization(
  ctx: RequestContext,
  id: string,
  body: IncrementAuthorizationBody,
): Promise<OperationResult> {
  const { row, attempt, bound } = await record(ctx, id, body.amount);
  const result = await callConnector(
    () =>
      bound.connector.incrementAuthorization!({
        idempotencyKey: attempt.id,
        credentials: bound.credentials,
        options: bound.options,
        payment: paymentHint(row),
        providerTransactionId: row.payment_service_transaction_id ?? '',
        reference: uuidToBase62(row.id),
        amount: attempt.amount,
        currency: row.currency,
      }),
    ctx.log,
  );
  return withRequestTransaction(ctx, (tx) => recordIncrement(tx, ctx, id, attempt, result));
}

/** Phase 3 of an increase, in the caller's transaction: the answer (or none: a timeout) on the attempt, and the transaction when approved. */
async function recordIncrement(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  attempt: AttemptRow,
  result: CallResult<IncrementOutcome>,
): Promise<OperationResult> {
  const current = (await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true }))!;
  const now = new Date();
  const answer = result.ok
    ? result.value
    : result.kind === 'timeout'
      ? null
      : {
          status: 'failed' as const,
          errorCode: 'service_network_error',
          rawResponseCode: null,
          rawResponseDescription: null,
        };
  const outcome = answer ? incrementPatch(current, answer.status, attempt.amount) : null;
  const applied: Applied | null = outcome
    ? { attemptStatus: outcome.attemptStatus, eventName: 'transaction-modified-event', patch: outcome.patch }
    : null;
  const updated = outcome?.raised
    ? await repo.updateTransaction(tx, ctx.merchantAccountId, id, outcome.patch)
    : current;
  await repo.updateAttempt(
    tx,
    ctx.merchantAccountId,
    attempt.id,
    attemptPatch(
      result,
      applied,
      nextCheckAt(0, now),
      null,
      outcome?.late ? 'late_outcome' : (answer?.errorCode ?? null),
    ),
  );
  await repo.insertEvents(tx, [attemptEvent(updated, attempt.id, 'increment', attempt.amount, result, applied, now)]);
  await recordAudit(tx, ctx, 'updated', {
    type: 'transaction',
    id,
    name: `${updated.currency} +${attempt.amount} authorization increment (${outcome?.raised ? 'approved' : 'not approved'})`,
  });
  if (outcome?.raised) await emitTransaction(tx, ctx.deps, updated, 'transaction.updated');
  return {
    type: 'transaction-authorization-increment',
    status: outcome?.raised ? 'succeeded' : 'failed',
    code: !answer ? 'timeout' : outcome?.late ? 'late_outcome' : answer.errorCode,
    raw_response_code: answer?.rawResponseCode ?? null,
    raw_response_description:
      answer?.rawResponseDescription ??
      (answer
        ? null
        : 'No answer from the payment service: the increase is reconciled later and applied if it was approved'),
    transaction: await transactionResource(tx, ctx, updated),
  };
}

/**
 * `resume` of `POST /transactions/{id}/authorization/increment` (resumed-operation.ts): the increase
 * the first request recorded, never a second one. Not approved (yet) answers `failed`, as a timeout does.
 */
export function resumeIncrement(ctx: RequestContext, attemptId: string): Promise<OperationResult> {
  return resumeAttempt(
    ctx,
    attemptId,
    'increment',
    (tx, attempt) => recordIncrement(tx, ctx, attempt.transaction_id, attempt, UNANSWERED),
    (attempt, transaction) => ({
      type: 'transaction-authorization-increment',
      status: attempt.status === 'succeeded' ? 'succeeded' : 'failed',
      code: attempt.status === 'unknown' ? 'timeout' : attempt.error_code,
      raw_response_code: attempt.raw_response_code,
      raw_response_description: attempt.raw_response_description,
      transaction,
    }),
  );
}
