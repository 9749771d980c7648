import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { AttemptRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Executor, type Tx } from '../../../db/transaction.ts';
import { notFound } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { auditQuery, recordAudit } from '../../audit-logs/audit-logs.service.ts';
import {
  attemptPatch,
  callConnector,
  connectorOfTransaction,
  paymentHint,
  UNANSWERED,
  type BoundConnector,
} from '../connector-call.ts';
import { resultOfAttempt, resumeAttempt } from '../resumed-operation.ts';
import type { CaptureTransactionBody } from '../create-transaction.schema.ts';
import { mispredicted, predictRow } from '../predicted-row.ts';
import { recordGuarded, writeGuarded } from '../guarded-answer.ts';
import { decodeTransactionRow } from '../snapshot-codec.ts';
import { applyCapture, nextCheckAt, type Applied } from '../outcomes.ts';
import { scheduleSettlement, settlementQueries } from '../settlements/settlements.service.ts';
import { scheduleSimulatedEvents, simulatedEventQueries } from '../simulations/simulated-events.ts';
import { attemptEvent, statusEvent } from '../transaction-events.ts';
import { captureRefusal } from '../transaction-status.ts';
import type { OperationResult, Transaction } from '../transaction.schema.ts';
import * as repo from '../transactions.repo.ts';
import {
  captureEventWrites,
  emitCapture,
  emitTransaction,
  transactionEventWrites,
  type TransactionEventKind,
} from '../webhook-events.ts';
import { transactionResource } from '../transaction-view.ts';
import { captureBasis, planCapture, relativeAmounts, type CapturePlan } from './capture-checks.ts';

/**
 * `POST /transactions/{id}/capture` in three phases: reserve the amount and record the attempt,
 * call the connector outside any database transaction, record the answer. Phases 1 and 3 each
 * first try one guarded statement without BEGIN/COMMIT (guarded-answer.ts) that applies only while
 * the transaction is as it was read; when it moved, the locked path (SELECT … FOR UPDATE) decides.
 */

export interface ReservedCapture {
  /** The transaction as the reservation left it. */
  row: TransactionRow;
  attempt: AttemptRow;
  bound: BoundConnector;
}

/** The checks of `planCapture`; the connection is looked up only for a capture the state allows. */
async function checked(
  db: Executor,
  ctx: RequestContext,
  row: TransactionRow,
  body: CaptureTransactionBody,
): Promise<{ plan: CapturePlan; bound: BoundConnector }> {
  const bound =
    captureRefusal(row) === null && !row.pending_review ? await connectorOfTransaction(db, ctx.deps, row) : null;
  const plan = planCapture(row, body, bound === null ? null : bound.connector.captureRules(bound.credentials));
  // planCapture refused the capture when there is no connection.
  return { plan, bound: bound! };
}

/** The capture attempt with every column given: the quick path knows the row it inserts without reading it back. */
function newAttempt(
  ctx: RequestContext,
  row: TransactionRow,
  plan: CapturePlan,
  body: CaptureTransactionBody,
  now: Date,
): AttemptRow {
  return {
    merchant_account_id: ctx.merchantAccountId,
    id: uuidv7(),
    transaction_id: row.id,
    operation: 'capture',
    status: 'in_flight',
    amount: plan.amount,
    final: plan.final,
    refund_id: null,
    payment_service_id: row.payment_service_id,
    external_identifier: body.external_identifier ?? null,
    provider_reference: null,
    approval_decision: null,
    error_code: null,
    raw_response_code: null,
    raw_response_description: null,
    next_check_at: nextCheckAt(0, now),
    checks: 0,
    compensates_attempt_id: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Phase 1 under the row lock: check the capture, reserve the amount (a final capture also closes
 * capturing) and record the attempt, then commit: a concurrent capture sees the reservation and
 * cannot exceed the limit.
 */
async function reserve(ctx: RequestContext, id: string, body: CaptureTransactionBody): Promise<ReservedCapture> {
  return withTransaction(ctx.deps.db, (tx) => reserveCapture(tx, ctx, id, body));
}

/**
 * `reserve` in the caller's database transaction: approving a review reserves the capture it
 * releases in the same transaction that ends the review (decision 0144), so nothing else captures
 * or voids in between. Then `completeCapture`, after the commit.
 */
export async function reserveCapture(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  body: CaptureTransactionBody,
): Promise<ReservedCapture> {
  const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound('transaction', id);
  const { plan, bound } = await checked(tx, ctx, row, body);
  const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, {
    capture_reserved: row.capture_reserved + plan.amount,
    ...(plan.final ? { capture_closed: true } : {}),
  });
  const attempt = await repo.insertAttempt(tx, newAttempt(ctx, row, plan, body, new Date()));
  // Committed with the attempt: a retry after a crash resumes this capture instead of capturing again.
  if (ctx.idempotency) await ctx.idempotency.bindResource(tx, attempt.id);
  return { row: updated, attempt, bound };
}

/**
 * Phase 1 in one statement: the transaction read without a lock and checked as `reserve` checks
 * it (a refusal is the answer), then a guarded update reserves the amount, relative to the stored
 * row, only while every column the checks read still holds what was read, and the attempt is
 * inserted with it. Null when a column moved meanwhile (a concurrent capture, refund, void or
 * increment): nothing was written and `reserve` decides under the lock.
 */
async function reserveQuickly(
  ctx: RequestContext,
  id: string,
  body: CaptureTransactionBody,
): Promise<ReservedCapture | null> {
  const db = ctx.deps.db;
  const row = await repo.findTransaction(db, ctx.merchantAccountId, id);
  if (!row) throw notFound('transaction', id);
  const { plan, bound } = await checked(db, ctx, row, body);
  const now = new Date();
  const attempt = newAttempt(ctx, row, plan, body, now);
  const update = repo.updateTransactionIfUnchangedQuery(db, ctx.merchantAccountId, id, {
    basis: captureBasis(row),
    add: { capture_reserved: plan.amount },
    patch: plan.final ? { capture_closed: true } : {},
    updatedAt: now,
  });
  // The idempotency key's binding is one more write of the statement (a key has one request at a time).
  const bind = ctx.idempotency ? [ctx.idempotency.bindResourceWrite(db, attempt.id)] : [];
  // Keyed by the transaction: two captures of it never share a grouped statement.
  const updated = await writeGuarded(db, update, [repo.insertAttemptQuery(db, attempt), ...bind], {
    column: 'id',
    value: id,
  });
  return updated && { row: decodeTransactionRow(updated), attempt, bound };
}

function call(ctx: RequestContext, { row, attempt, bound }: ReservedCapture) {
  return callConnector(
    () =>
      bound.connector.capture({
        idempotencyKey: attempt.id,
        credentials: bound.credentials,
        options: bound.options,
        payment: paymentHint(row),
        providerTransactionId: row.payment_service_transaction_id ?? '',
        reference: uuidToBase62(row.id),
        amount: attempt.amount,
        currency: row.currency,
        final: attempt.final,
      }),
    ctx.log,
  );
}

type Answer = Awaited<ReturnType<typeof call>>;

/** The answer as `applyCapture` takes it: a technical failure fails the capture; null for a timeout (no answer). */
function outcomeOf(result: Answer) {
  if (result.ok) return result.value;
  return result.kind === 'timeout'
    ? null
    : ({
        status: 'failed',
        errorCode: 'service_network_error',
        rawResponseCode: null,
        rawResponseDescription: null,
      } as const);
}

/** The transaction's webhook event of a capture's answer: captured, updated when only its status changed, or none. */
function transactionKind(
  before: TransactionRow,
  after: TransactionRow,
  applied: Applied | null,
): TransactionEventKind | null {
  if (applied?.attemptStatus === 'succeeded') return 'transaction.captured';
  return before.status !== after.status ? 'transaction.updated' : null;
}

function history(
  before: TransactionRow,
  after: TransactionRow,
  attempt: AttemptRow,
  result: Answer,
  applied: Applied | null,
  now: Date,
) {
  return [
    statusEvent(after, before.status, now),
    attemptEvent(after, attempt.id, 'capture', attempt.amount, result, applied, now),
  ].filter((e) => e !== null);
}

const audited = (row: TransactionRow, attempt: AttemptRow) => ({
  type: 'transaction',
  id: row.id,
  name: `${row.currency} ${attempt.amount}`,
});

/** The response of either path: the capture record, or the transaction with `prefer: resource=transaction`. */
function respond(
  transaction: Transaction,
  result: Answer,
  applied: Applied | null,
  preferTransaction: boolean,
): OperationResult | Transaction {
  if (preferTransaction) return transaction;
  const status = applied
    ? applied.attemptStatus === 'succeeded'
      ? 'succeeded'
      : applied.attemptStatus === 'declined'
        ? 'declined'
        : applied.attemptStatus === 'pending'
          ? 'pending'
          : 'failed'
    : 'pending';
  return {
    type: 'transaction-capture',
    status,
    transaction,
    code: result.ok ? result.value.errorCode : result.kind === 'timeout' ? 'timeout' : 'service_network_error',
    raw_response_code: result.ok ? result.value.rawResponseCode : null,
    raw_response_description: result.ok ? result.value.rawResponseDescription : null,
  };
}

/** Phase 3 under the row lock: every answer, a timeout included (the attempt stays open for reconciliation). */
async function record(
  ctx: RequestContext,
  { row, attempt }: ReservedCapture,
  result: Answer,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  return withRequestTransaction(ctx, (tx) => recordIn(tx, ctx, row.id, attempt, result, preferTransaction));
}

/** `record` in the caller's transaction (also a resumed capture's: resumeCapture). */
async function recordIn(
  tx: Tx,
  ctx: RequestContext,
  transactionId: string,
  attempt: AttemptRow,
  result: Answer,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  const current = (await repo.findTransaction(tx, ctx.merchantAccountId, transactionId, { forUpdate: true }))!;
  const now = new Date();
  const outcome = outcomeOf(result);
  const applied = outcome ? applyCapture(current, outcome, attempt, now) : null;
  const updated = applied
    ? await repo.updateTransaction(tx, ctx.merchantAccountId, transactionId, applied.patch)
    : current;
  const recorded = await repo.updateAttempt(
    tx,
    ctx.merchantAccountId,
    attempt.id,
    attemptPatch(result, applied, nextCheckAt(0, now), result.ok ? result.value.providerCaptureId : null),
  );
  await repo.insertEvents(tx, history(current, updated, attempt, result, applied, now));
  const kind = transactionKind(current, updated, applied);
  if (kind) await emitTransaction(tx, ctx.deps, updated, kind);
  await emitCapture(tx, ctx.deps, recorded, updated);
  await recordAudit(tx, ctx, 'captured', audited(updated, attempt));
  // Every capture settles on its own, final or not (decision 0054).
  if (applied?.attemptStatus === 'succeeded') await scheduleSettlement(tx, ctx.deps, updated, attempt.id);
  // A sandbox simulator's collection now pending (direct debit): what its provider reports later.
  if (applied?.attemptStatus === 'pending') await scheduleSimulatedEvents(tx, ctx.deps, updated, attempt);
  return respond(await transactionResource(tx, ctx, updated), result, applied, preferTransaction);
}

/**
 * The columns phase 3's guarded update requires unchanged since the reservation: those
 * `applyCapture` reads, and, because the webhook snapshots and the history are rendered from the
 * reserved row, the amounts other operations move and `updated_at`, which every write of a
 * transaction sets (transactions.repo.ts): the row is then the one the events show.
 */
const answerBasis = (row: TransactionRow): repo.TransactionBasis => ({
  ...captureBasis(row),
  refunded_amount: row.refunded_amount,
  refund_reserved: row.refund_reserved,
  updated_at: row.updated_at,
});

/**
 * Phase 3 for an answer (succeeded, pending, declined, failed; not a timeout) in one guarded
 * statement: the transaction's patch from `applyCapture` on the reserved row (its amounts moved
 * relative to the stored row) while it is still as reserved, with the attempt's answer, the
 * history events, the webhook events, the audit entry and the settlement job, all rendered
 * beforehand from the row the update will leave (predicted-row.ts). The response is rendered from
 * the stored row, as `record` renders it; with an idempotency key from that predicted row, and
 * stored by the same statement. Null (nothing written) sends a timeout and a
 * transaction that moved since phase 1 to `record`.
 */
async function recordQuickly(
  ctx: RequestContext,
  { row, attempt }: ReservedCapture,
  result: Answer,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction | null> {
  const outcome = outcomeOf(result);
  if (!outcome) return null;
  const db = ctx.deps.db;
  const now = new Date();
  const applied = applyCapture(row, outcome, attempt, now);
  const predicted = predictRow(row, applied.patch, now);
  const expected = predicted.row;
  const attemptChange = attemptPatch(
    result,
    applied,
    nextCheckAt(0, now),
    result.ok ? result.value.providerCaptureId : null,
  );
  const kind = transactionKind(row, expected, applied);
  const outboxes = [
    kind ? await transactionEventWrites(db, ctx.deps, expected, kind) : [],
    await captureEventWrites(db, ctx.deps, { ...attempt, ...attemptChange, updated_at: now }, expected),
  ];
  const settles = applied.attemptStatus === 'succeeded';
  const simulated = applied.attemptStatus === 'pending' ? simulatedEventQueries(db, ctx.deps, expected, attempt) : [];
  const writes = [
    repo.updateAttemptQuery(db, ctx.merchantAccountId, attempt.id, attemptChange, now),
    repo.insertEventsQuery(db, history(row, expected, attempt, result, applied, now)),
    auditQuery(db, ctx, 'captured', audited(expected, attempt)),
    ...outboxes.flat(),
    ...(settles ? settlementQueries(db, ctx.deps, expected, attempt.id) : []),
    ...simulated,
  ];
  const { patch, add } = relativeAmounts(row, applied.patch);
  const update = repo.updateTransactionIfUnchangedQuery(db, ctx.merchantAccountId, row.id, {
    basis: answerBasis(row),
    add,
    patch,
    updatedAt: now,
  });
  const render = async (executor: Executor, stored: TransactionRow) =>
    respond(await transactionResource(executor, ctx, decodeTransactionRow(stored)), result, applied, preferTransaction);
  const recorded = await recordGuarded(ctx, update, writes, render, { column: 'id', value: row.id }, expected);
  if (!recorded) return null;
  // Jobs were queued: webhook deliveries (an event is written only with them), anti-fraud reports,
  // the settlement or the simulator's report.
  if (settles || simulated.length > 0 || outboxes.some((writes) => writes.length > 0)) ctx.deps.queue.pokeSoon();
  // Every column, not only those the update set: the events were rendered from the reserved row.
  const wrong = mispredicted({ ...predicted, set: Object.keys(expected) }, decodeTransactionRow(recorded.row));
  if (wrong.length > 0)
    ctx.log.error(
      { transactionId: row.id, columns: wrong },
      'the predicted transaction row differs from the stored one; the capture events may show stale values',
    );
  return recorded.value;
}

/** Phases 2 and 3 of a reserved capture: the connector call outside any database transaction, then its answer. */
export async function completeCapture(
  ctx: RequestContext,
  reserved: ReservedCapture,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  const result = await call(ctx, reserved);
  return (
    (await recordQuickly(ctx, reserved, result, preferTransaction)) ?? record(ctx, reserved, result, preferTransaction)
  );
}

/** `POST /transactions/{id}/capture`. Returns the capture record; the route picks the shape by `prefer`. */
export async function captureTransaction(
  ctx: RequestContext,
  id: string,
  body: CaptureTransactionBody,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  const reserved = (await reserveQuickly(ctx, id, body)) ?? (await reserve(ctx, id, body));
  return completeCapture(ctx, reserved, preferTransaction);
}

/** `resume` of `POST /transactions/{id}/capture` (resumed-operation.ts): the capture the first request recorded. */
export function resumeCapture(
  ctx: RequestContext,
  attemptId: string,
  preferTransaction: boolean,
): Promise<OperationResult | Transaction> {
  return resumeAttempt(
    ctx,
    attemptId,
    'capture',
    (tx, attempt) => recordIn(tx, ctx, attempt.transaction_id, attempt, UNANSWERED, preferTransaction),
    (attempt, transaction) =>
      preferTransaction ? transaction : resultOfAttempt('transaction-capture', attempt, transaction),
  );
}
