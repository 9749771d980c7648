import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import type { VoidOutcome } from '../../../connectors/connector.ts';
import { AppError, notFound } from '../../../errors/app-error.ts';
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
import { resultOfAttempt, resumeAttempt } from '../resumed-operation.ts';
import { applyVoid, nextCheckAt } from '../outcomes.ts';
import { cancelChallenge } from '../three-ds/three-ds-challenge.service.ts';
import { withdrawalRefusal } from './cancel-withdrawal.ts';
import { scheduleReversals } from '../../gift-cards/gift-cards.service.ts';
import { attemptEvent, statusEvent } from '../transaction-events.ts';
import { cancelRefusal, intentOutcome, nextStatus, voidRefusal } from '../transaction-status.ts';
import type { OperationResult, Transaction } from '../transaction.schema.ts';
import * as repo from '../transactions.repo.ts';
import { emitStatusChange, emitTransaction } from '../webhook-events.ts';
import { transactionResource } from '../transaction-view.ts';

/** The capabilities of the transaction's connector; null without a service, or a connector this process lacks. */
function capabilitiesOf(ctx: RequestContext, row: { payment_service: Record<string, unknown> | null }) {
  const definition = row.payment_service?.payment_service_definition_id;
  if (typeof definition !== 'string') return null;
  return ctx.deps.connectors.find(definition)?.definition.capabilities ?? null;
}

/** A void reserved under the row lock (capturing closed, the attempt recorded), to be sent by `completeVoid`. */
export interface ReservedVoid {
  row: TransactionRow;
  attemptId: string;
  bound: BoundConnector;
}

/**
 * Phase 1 of a void in the caller's database transaction: closing capturing under the row lock
 * stops a concurrent capture from starting. Declining a review reserves its void in the
 * transaction that ends the review (decision 0144).
 */
export async function reserveVoid(tx: Tx, ctx: RequestContext, id: string): Promise<ReservedVoid> {
  const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound('transaction', id);
  const refusal = voidRefusal(row);
  if (refusal) throw new AppError('bad_request', refusal);
  const bound = await connectorOfTransaction(tx, ctx.deps, row);
  const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, { capture_closed: true });
  const attemptId = uuidv7();
  await repo.insertAttempt(tx, {
    merchant_account_id: ctx.merchantAccountId,
    id: attemptId,
    transaction_id: id,
    operation: 'void',
    status: 'in_flight',
    payment_service_id: row.payment_service_id,
    next_check_at: nextCheckAt(0, new Date()),
  });
  // Committed with the attempt: a retry after a crash resumes this void instead of voiding again.
  if (ctx.idempotency) await ctx.idempotency.bindResource(tx, attemptId);
  return { row: updated, attemptId, bound };
}

/** `POST /transactions/{id}/void`: releases an authorization that nothing was captured from. */
export async function voidTransaction(
  ctx: RequestContext,
  id: string,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  const reserved = await withTransaction(ctx.deps.db, (tx) => reserveVoid(tx, ctx, id));
  return completeVoid(ctx, reserved, preferTransaction);
}

/** Phases 2 and 3 of a reserved void: the connector call outside any database transaction, then its answer. */
export async function completeVoid(
  ctx: RequestContext,
  { row, attemptId, bound }: ReservedVoid,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  const result = await callConnector(
    () =>
      bound.connector.void({
        idempotencyKey: attemptId,
        credentials: bound.credentials,
        options: bound.options,
        payment: paymentHint(row),
        providerTransactionId: row.payment_service_transaction_id ?? '',
        reference: uuidToBase62(row.id),
      }),
    ctx.log,
  );
  return withRequestTransaction(ctx, (tx) => recordVoid(tx, ctx, row.id, attemptId, result, preferTransaction));
}

/** Phase 3 of a void, in the caller's transaction: the answer (or none: a timeout) on the transaction and the attempt. */
async function recordVoid(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  attemptId: string,
  result: CallResult<VoidOutcome>,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  const current = (await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true }))!;
  const now = new Date();
  const applied = result.ok
    ? applyVoid(current, result.value, now)
    : result.kind === 'timeout'
      ? null
      : applyVoid(current, { status: 'failed' }, now);
  const updated = applied ? await repo.updateTransaction(tx, ctx.merchantAccountId, id, applied.patch) : current;
  await repo.updateAttempt(
    tx,
    ctx.merchantAccountId,
    attemptId,
    attemptPatch(result, applied, nextCheckAt(0, now), null),
  );
  await repo.insertEvents(
    tx,
    [
      statusEvent(updated, current.status, now),
      attemptEvent(updated, attemptId, 'void', 0, result, applied, now),
    ].filter((e) => e !== null),
  );
  if (applied?.attemptStatus === 'succeeded') {
    await emitTransaction(tx, ctx.deps, updated, 'transaction.voided');
    // A voided payment is given up as a canceled one is: what gift cards paid towards it goes back
    // to them, recorded and enqueued in this transaction (as cancelTransaction does below).
    if (updated.multi_tender) await scheduleReversals(tx, ctx.deps, ctx.merchantAccountId, id);
  } else await emitStatusChange(tx, ctx.deps, current, updated);
  await recordAudit(tx, ctx, 'voided', { type: 'transaction', id, name: `${updated.currency} ${updated.amount}` });
  const transaction = await transactionResource(tx, ctx, updated);
  if (preferTransaction) return transaction;
  return {
    type: 'transaction-void',
    status: applied
      ? applied.attemptStatus === 'succeeded'
        ? 'succeeded'
        : applied.attemptStatus === 'pending'
          ? 'pending'
          : applied.attemptStatus
      : 'pending',
    code: result.ok ? result.value.errorCode : result.kind,
    raw_response_code: result.ok ? result.value.rawResponseCode : null,
    raw_response_description: result.ok ? result.value.rawResponseDescription : null,
    transaction,
  };
}

/** `resume` of `POST /transactions/{id}/void` (resumed-operation.ts): the void the first request recorded, never a second one. */
export function resumeVoid(
  ctx: RequestContext,
  attemptId: string,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  return resumeAttempt(
    ctx,
    attemptId,
    'void',
    (tx, attempt) => recordVoid(tx, ctx, attempt.transaction_id, attempt.id, UNANSWERED, preferTransaction),
    (attempt, transaction) =>
      preferTransaction ? transaction : resultOfAttempt('transaction-void', attempt, transaction),
  );
}

/**
 * `POST /transactions/{id}/cancel`: a transaction still processing or awaiting buyer approval is
 * given up. Nothing was authorized, so no connector call is needed: the transaction ends
 * `authorization_failed` with `error_code` `canceled` and `canceled_at` (decision 0052). An
 * attempt still open at the provider is left to reconciliation, which records (and logs) a late
 * authorization on the attempt and has it voided at the provider (late-void.service.ts).
 */
export async function cancelTransaction(ctx: RequestContext, id: string): Promise<OperationResult> {
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('transaction', id);
    const refusal = cancelRefusal(row) ?? withdrawalRefusal(row, capabilitiesOf(ctx, row));
    if (refusal) throw new AppError('bad_request', refusal);
    const now = new Date();
    const status = nextStatus(row.status, 'authorization_failed');
    // A 3DS challenge still waiting ends here, and the card data it held goes with it.
    const challenge = row.status === 'buyer_approval_pending' ? await cancelChallenge(tx, ctx.deps, row) : {};
    const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, {
      status,
      intent_outcome: intentOutcome(row.intent, status),
      error_code: 'canceled',
      canceled_at: now,
      ...challenge,
    });
    await repo.insertEvents(
      tx,
      [statusEvent(updated, row.status, now)].filter((e) => e !== null),
    );
    await emitTransaction(tx, ctx.deps, updated, 'transaction.canceled');
    await recordAudit(tx, ctx, 'canceled', { type: 'transaction', id, name: `${updated.currency} ${updated.amount}` });
    // What gift cards already paid towards a canceled multi-tender payment goes back to them: each
    // reversal is recorded and its job enqueued in this transaction, so a crash right after the
    // commit cannot lose it (gift-card-reversals.service.ts). A redemption still in flight is given
    // back by the request that makes it, when it finds the transaction canceled.
    if (updated.multi_tender) await scheduleReversals(tx, ctx.deps, ctx.merchantAccountId, id);
    return {
      type: 'transaction-cancel',
      status: 'succeeded',
      code: null,
      raw_response_code: null,
      raw_response_description: null,
      transaction: await transactionResource(tx, ctx, updated),
    };
  });
}
