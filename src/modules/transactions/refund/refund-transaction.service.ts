import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { NewAttempt, RefundRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { invalidField, notFound } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { auditQuery, recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { recordGuarded, writeGuarded } from '../guarded-answer.ts';
import { decodeTransactionRow } from '../snapshot-codec.ts';
import {
  attemptPatch,
  callConnector,
  connectorOfTransaction,
  notificationUrlOf,
  paymentHint,
  UNANSWERED,
  type BoundConnector,
} from '../connector-call.ts';
import { applyRefund, nextCheckAt } from '../outcomes.ts';
import { mispredicted } from '../predicted-row.ts';
import { toRefundResource, type CreateRefundBody, type Refund } from '../refund.schema.ts';
import { event } from '../transaction-events.ts';
import { refundSettlementQueries, scheduleRefundSettlement } from '../settlements/settlements.service.ts';
import * as repo from '../transactions.repo.ts';
import { emitRefund, refundEventWrites, refundKind } from '../webhook-events.ts';
import { listTransactionGiftCardRedemptions } from '../../gift-cards/gift-cards.service.ts';
import { bindRefund, refundRedemption, settleGiftCardRefund, type BindAs } from './gift-card-refund.service.ts';
import { planRefund, refundBasis } from './refund-checks.ts';

interface Reserved {
  row: TransactionRow;
  refund: RefundRow;
  attemptId: string;
  bound: BoundConnector;
}

/** The refund with every column given: the quick path knows the row it inserts without reading it back. */
function newRefund(
  ctx: RequestContext,
  row: TransactionRow,
  amount: number,
  body: CreateRefundBody,
  now: Date,
): RefundRow & { creator: null } {
  return {
    merchant_account_id: ctx.merchantAccountId,
    id: uuidv7(),
    transaction_id: row.id,
    status: 'processing',
    currency: row.currency,
    amount,
    reason: body.reason ?? null,
    target_type: 'payment-method',
    target_id: row.payment_method_id,
    external_identifier: body.external_identifier ?? null,
    payment_service_refund_id: null,
    error_code: null,
    raw_response_code: null,
    raw_response_description: null,
    creator: null,
    settled: false,
    created_at: now,
    updated_at: now,
  };
}

const refundAttempt = (row: TransactionRow, refund: RefundRow, attemptId: string): NewAttempt => ({
  merchant_account_id: row.merchant_account_id,
  id: attemptId,
  transaction_id: row.id,
  operation: 'refund',
  status: 'in_flight',
  amount: refund.amount,
  refund_id: refund.id,
  payment_service_id: row.payment_service_id,
  next_check_at: nextCheckAt(0, new Date()),
});

/**
 * Phase 1 under the row lock: check and reserve the amount, record the refund and its attempt, and
 * bind the refund to the idempotency key in the same commit: a retry after a crash resumes it.
 */
async function reserve(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  body: CreateRefundBody,
  requireAmount: boolean,
  bindAs: BindAs,
): Promise<Reserved | null> {
  const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound('transaction', id);
  const amount = planRefund(row, body, requireAmount);
  if (amount === null) return null;
  const bound = await connectorOfTransaction(tx, ctx.deps, row);
  const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, {
    refund_reserved: row.refund_reserved + amount,
  });
  const refund = await repo.insertRefund(tx, newRefund(ctx, row, amount, body, new Date()));
  const attemptId = uuidv7();
  await repo.insertAttempt(tx, refundAttempt(row, refund, attemptId));
  if (ctx.idempotency) await ctx.idempotency.bindResource(tx, bindAs(refund.id));
  return { row: updated, refund, attemptId, bound };
}

/**
 * Phase 1 in one statement: the transaction read without a lock and checked as `reserve` checks
 * it (a refusal is the answer), then a guarded update reserves the amount, relative to the stored
 * row, only while the columns the checks read still hold what was read, and the refund and its
 * attempt are inserted with it. Null when a column moved meanwhile (a concurrent refund or
 * capture), or nothing is left to refund: nothing was written and `reserve` decides under the lock.
 */
async function reserveQuickly(
  ctx: RequestContext,
  id: string,
  body: CreateRefundBody,
  requireAmount: boolean,
  bindAs: BindAs,
): Promise<Reserved | null> {
  const db = ctx.deps.db;
  const row = await repo.findTransaction(db, ctx.merchantAccountId, id);
  if (!row) throw notFound('transaction', id);
  const amount = planRefund(row, body, requireAmount);
  if (amount === null) return null;
  const bound = await connectorOfTransaction(db, ctx.deps, row);
  const now = new Date();
  const refund = newRefund(ctx, row, amount, body, now);
  const attemptId = uuidv7();
  const update = repo.updateTransactionIfUnchangedQuery(db, ctx.merchantAccountId, id, {
    basis: refundBasis(row),
    add: { refund_reserved: amount },
    updatedAt: now,
  });
  // The idempotency key's binding is one more write of the statement (a key has one request at a time).
  const bind = ctx.idempotency ? [ctx.idempotency.bindResourceWrite(db, bindAs(refund.id))] : [];
  // Keyed by the transaction: two refunds of it never share a grouped statement.
  const updated = await writeGuarded(
    db,
    update,
    [repo.insertRefundQuery(db, refund), repo.insertAttemptQuery(db, refundAttempt(row, refund, attemptId)), ...bind],
    { column: 'id', value: id },
  );
  return updated && { row: decodeTransactionRow(updated), refund, attemptId, bound };
}

/** Phase 1: in one statement while the transaction holds still, else under the row lock. Null: nothing to refund. */
async function reserveRefund(
  ctx: RequestContext,
  id: string,
  body: CreateRefundBody,
  requireAmount: boolean,
  bindAs: BindAs = bindRefund,
): Promise<Reserved | null> {
  return (
    (await reserveQuickly(ctx, id, body, requireAmount, bindAs)) ??
    withTransaction(ctx.deps.db, (tx) => reserve(tx, ctx, id, body, requireAmount, bindAs))
  );
}

/** Phase 3: the connector's answer on the refund, the transaction's amounts, an event, an audit entry. */
async function record(
  tx: Tx,
  ctx: RequestContext,
  reserved: Pick<Reserved, 'refund' | 'attemptId'>,
  result: Awaited<ReturnType<typeof call>>,
): Promise<Refund> {
  const { refund, attemptId } = reserved;
  const current = (await repo.findTransaction(tx, ctx.merchantAccountId, refund.transaction_id, { forUpdate: true }))!;
  const now = new Date();
  const applied = result.ok
    ? applyRefund(current, result.value, refund.amount)
    : result.kind === 'timeout'
      ? null
      : applyRefund(current, { status: 'failed' }, refund.amount);
  if (applied && Object.keys(applied.patch).length > 0)
    await repo.updateTransaction(tx, ctx.merchantAccountId, current.id, applied.patch);
  const answer = result.ok ? result.value : null;
  const updatedRefund = await repo.updateRefund(tx, ctx.merchantAccountId, refund.id, {
    status: applied?.refundStatus ?? 'processing',
    payment_service_refund_id: answer?.providerRefundId ?? null,
    error_code: answer?.errorCode ?? (result.ok ? null : result.kind === 'timeout' ? null : 'service_network_error'),
    raw_response_code: answer?.rawResponseCode ?? null,
    raw_response_description: answer?.rawResponseDescription ?? null,
  });
  await repo.updateAttempt(
    tx,
    ctx.merchantAccountId,
    attemptId,
    attemptPatch(result, applied, nextCheckAt(0, now), answer?.providerRefundId ?? null),
  );
  await repo.insertEvents(tx, [
    refundEvent(current, reserved, applied?.attemptStatus ?? 'unknown', answer?.errorCode ?? null, result.ms, now),
  ]);
  await recordAudit(tx, ctx, 'created', { type: 'refund', id: refund.id, name: `${refund.currency} ${refund.amount}` });
  await emitRefund(tx, ctx.deps, updatedRefund, current, 'refund.created');
  if (updatedRefund.status !== 'processing')
    await emitRefund(tx, ctx.deps, updatedRefund, current, refundKind(updatedRefund.status));
  if (updatedRefund.status === 'succeeded') await scheduleRefundSettlement(tx, ctx.deps, updatedRefund, current);
  return toRefundResource(updatedRefund, current);
}

/**
 * Phase 3 for a final answer (succeeded, declined, failed): one guarded statement (guarded-answer.ts)
 * sets the refund's answer while it is still `processing`, and with it releases the reservation on
 * the transaction (relative amounts, no row read first), records the attempt's answer, the history
 * event, the audit entry, the webhook events and the settlement job, all rendered beforehand. Null
 * sends the rest (a timeout, an answer still processing, a refund reconciliation settled first)
 * down the locked path of `record`; nothing was written then.
 */
async function recordQuickly(
  ctx: RequestContext,
  reserved: Reserved,
  result: Awaited<ReturnType<typeof call>>,
): Promise<Refund | null> {
  if (!result.ok && result.kind === 'timeout') return null;
  const answer = result.ok ? result.value : null;
  const status = answer ? answer.status : 'failed';
  if (status === 'processing') return null;
  const { row, refund, attemptId } = reserved;
  const db = ctx.deps.db;
  const now = new Date();
  const applied = applyRefund(row, { status }, refund.amount);
  const refundPatch = {
    status: applied.refundStatus,
    payment_service_refund_id: answer?.providerRefundId ?? null,
    error_code: answer?.errorCode ?? (result.ok ? null : 'service_network_error'),
    raw_response_code: answer?.rawResponseCode ?? null,
    raw_response_description: answer?.rawResponseDescription ?? null,
  };
  // The refund as the update leaves it: what the webhook events show.
  const expected: RefundRow = { ...refund, ...refundPatch, updated_at: now };
  const outbox = [
    ...(await refundEventWrites(db, ctx.deps, expected, row, 'refund.created')),
    ...(await refundEventWrites(db, ctx.deps, expected, row, refundKind(expected.status))),
  ];
  const succeeded = expected.status === 'succeeded';
  const writes = [
    repo.releaseRefundReservationQuery(db, ctx.merchantAccountId, row.id, refund.amount, succeeded, now),
    repo.updateAttemptQuery(
      db,
      ctx.merchantAccountId,
      attemptId,
      attemptPatch(result, applied, nextCheckAt(0, now), answer?.providerRefundId ?? null),
    ),
    repo.insertEventsQuery(db, [
      refundEvent(row, reserved, applied.attemptStatus, answer?.errorCode ?? null, result.ms, now),
    ]),
    auditQuery(db, ctx, 'created', { type: 'refund', id: refund.id, name: `${refund.currency} ${refund.amount}` }),
    ...outbox,
    ...(succeeded ? refundSettlementQueries(db, ctx.deps, expected, row) : []),
  ];
  const update = repo.updateRefundIfStatusQuery(db, ctx.merchantAccountId, refund.id, 'processing', refundPatch, now);
  // Keyed by the transaction: its row is updated too, so two refunds of it never share a statement.
  // With an idempotency key the response is rendered from `expected` and stored by the same statement.
  const recorded = await recordGuarded(
    ctx,
    update,
    writes,
    (_db, updated) => toRefundResource(updated, row),
    { column: 'transaction_id', value: row.id },
    expected,
  );
  if (!recorded) return null;
  ctx.deps.queue.pokeSoon();
  // Every column: the refund was inserted from `refund` without being read back.
  const wrong = mispredicted({ row: expected, set: Object.keys(expected) }, recorded.row);
  if (wrong.length > 0)
    ctx.log.error(
      { refundId: refund.id, columns: wrong },
      'the predicted refund row differs from the stored one; its events may show stale values',
    );
  return recorded.value;
}

/** The history event of a refund's connector call. */
function refundEvent(
  row: TransactionRow,
  reserved: Pick<Reserved, 'refund' | 'attemptId'>,
  outcome: string,
  errorCode: string | null,
  ms: number,
  now: Date,
) {
  return event(
    row,
    'transaction-sync-event',
    {
      operation: 'refund',
      attempt_id: reserved.attemptId,
      refund_id: reserved.refund.id,
      amount: reserved.refund.amount,
      outcome,
      error_code: errorCode,
      duration_ms: ms,
    },
    now,
  );
}

function call(ctx: RequestContext, reserved: Reserved) {
  const { row, refund, bound } = reserved;
  return callConnector(
    () =>
      bound.connector.refund({
        idempotencyKey: reserved.attemptId,
        credentials: bound.credentials,
        options: bound.options,
        payment: paymentHint(row),
        providerTransactionId: row.payment_service_transaction_id ?? '',
        reference: uuidToBase62(refund.id),
        amount: refund.amount,
        currency: refund.currency,
        reason: refund.reason,
        notificationUrl: notificationUrlOf(ctx.deps, row),
      }),
    ctx.log,
  );
}

/** `POST /transactions/{id}/refunds`: partial or full (amount omitted) refund of the captured amount. */
export async function refundTransaction(ctx: RequestContext, id: string, body: CreateRefundBody): Promise<Refund> {
  if (body.target_type === 'gift-card-redemption') return refundRedemptionOf(ctx, id, body);
  const reserved = (await reserveRefund(ctx, id, body, true))!;
  const result = await call(ctx, reserved);
  return (
    (await recordQuickly(ctx, reserved, result)) ??
    withRequestTransaction(ctx, (tx) => record(tx, ctx, reserved, result))
  );
}

/**
 * `POST /transactions/{id}/refunds/all`: refunds every instrument's refundable amount. With one
 * payment method per transaction (no gift card redemptions here yet) that is one refund of the
 * rest; nothing left gives an empty list.
 */
export async function refundAll(
  ctx: RequestContext,
  id: string,
  body: { reason?: string | null; external_identifier?: string | null } | null | undefined,
) {
  const extra = { reason: body?.reason ?? null, external_identifier: body?.external_identifier ?? null };
  const row = await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('transaction', id);
  const giftCardRefunds: Refund[] = [];
  // Each refund is bound to the idempotency key with the ones before it, as it is recorded.
  const bindAs: BindAs = (refundId) => [...giftCardRefunds.map((r) => r.id), refundId].join(',');
  for (const redemption of await listTransactionGiftCardRedemptions(ctx.deps.db, ctx, id)) {
    const left = redemption.amount - redemption.refunded_amount;
    if (redemption.status === 'succeeded' && left > 0)
      giftCardRefunds.push(await refundRedemption(ctx, row, redemption.id, left, extra, bindAs));
  }
  const reserved = row.captured_amount > 0 ? await reserveRefund(ctx, id, extra, false, bindAs) : null;
  const result = reserved ? await call(ctx, reserved) : null;
  return withRequestTransaction(ctx, async (tx) => {
    const items = reserved && result ? [await record(tx, ctx, reserved, result)] : [];
    return { items: [...giftCardRefunds, ...items], limit: 20, next_cursor: null, previous_cursor: null };
  });
}

async function refundRedemptionOf(ctx: RequestContext, id: string, body: CreateRefundBody): Promise<Refund> {
  const row = await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('transaction', id);
  if (!body.target_id)
    throw invalidField('body', '/target_id', 'target_id is required when target_type is gift-card-redemption');
  const redemption = (await listTransactionGiftCardRedemptions(ctx.deps.db, ctx, id)).find(
    (r) => r.id === body.target_id,
  );
  if (!redemption) throw notFound('gift card redemption', body.target_id);
  const refund = await refundRedemption(
    ctx,
    row,
    redemption.id,
    body.amount ?? redemption.amount - redemption.refunded_amount,
    body,
  );
  // The idempotency record (when a key was sent) is written with the answer.
  return withRequestTransaction(ctx, async () => refund);
}

/**
 * A refund a retry resumes (http/idempotency.ts): its request died, or failed with a 5xx, after
 * recording it. A call whose answer was never recorded (the attempt still `in_flight`) is recorded
 * now without an answer, as a timeout is: the refund stays `processing` and reconciliation asks the
 * provider; the request's history event, audit entry and `refund.created` webhook are written with
 * it. The provider is never called again. Otherwise the refund as it is now.
 */
async function finishRefund(tx: Tx, ctx: RequestContext, refundId: string): Promise<Refund> {
  const refund = await repo.findRefund(tx, ctx.merchantAccountId, refundId);
  if (!refund) throw notFound('refund', refundId);
  // The attempt first, then the transaction (in `record`): reconciliation locks in this order.
  const attempt = await repo.findRefundAttempt(tx, ctx.merchantAccountId, refund.transaction_id, refund.id, {
    forUpdate: true,
  });
  if (attempt?.status === 'in_flight') return record(tx, ctx, { refund, attemptId: attempt.id }, UNANSWERED);
  return toRefundResource(refund, (await repo.findTransaction(tx, ctx.merchantAccountId, refund.transaction_id))!);
}

/** `resume` of `POST /transactions/{id}/refunds`: the refund the first request recorded, its answer stored with it. */
export async function resumeRefund(ctx: RequestContext, refundId: string): Promise<Refund> {
  // A gift card refund's call is settled from the service's status query first, outside any transaction.
  await settleGiftCardRefund(ctx, refundId);
  return withRequestTransaction(ctx, (tx) => finishRefund(tx, ctx, refundId));
}

/**
 * `resume` of `POST /transactions/{id}/refunds/all`: the refunds the first request recorded before
 * it died, in its order. What it had not started yet is still refundable (a new request refunds it).
 */
export async function resumeRefundAll(ctx: RequestContext, refundIds: string) {
  for (const refundId of refundIds.split(',')) await settleGiftCardRefund(ctx, refundId);
  return withRequestTransaction(ctx, async (tx) => {
    const items: Refund[] = [];
    for (const refundId of refundIds.split(',')) items.push(await finishRefund(tx, ctx, refundId));
    return { items, limit: 20, next_cursor: null, previous_cursor: null };
  });
}
