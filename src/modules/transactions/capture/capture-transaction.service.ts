import { withRequestTransaction, type RequestContext } from '../../../context.ts';
import type { AttemptRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { AppError, invalidField, notFound } from '../../../errors/app-error.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { recordAudit } from '../../audit-logs/audit-logs.service.ts';
import { attemptPatch, callConnector, connectorOfTransaction, paymentHint, type BoundConnector } from '../connector-call.ts';
import type { CaptureTransactionBody } from '../create-transaction.schema.ts';
import { applyCapture, nextCheckAt } from '../outcomes.ts';
import { scheduleSettlement } from '../settlements/settlements.service.ts';
import { attemptEvent, statusEvent } from '../transaction-events.ts';
import { captureRefusal } from '../transaction-status.ts';
import type { OperationResult, Transaction } from '../transaction.schema.ts';
import * as repo from '../transactions.repo.ts';
import { emitCapture, emitStatusChange, emitTransaction } from '../webhook-events.ts';
import { transactionResource } from '../transaction-view.ts';

/**
 * Phase 1: lock the transaction, check the capture against the state machine and the amounts,
 * reserve the amount (a final capture also closes capturing) and record the attempt, then commit:
 * a concurrent capture sees the reservation and cannot exceed the limit.
 */
async function reserve(ctx: RequestContext, id: string, body: CaptureTransactionBody): Promise<{ row: TransactionRow; attempt: AttemptRow; bound: BoundConnector }> {
  return withTransaction(ctx.deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('transaction', id);
    const refusal = captureRefusal(row);
    if (refusal) throw new AppError('bad_request', refusal);
    const bound = await connectorOfTransaction(tx, ctx.deps, row);
    const final = body.final ?? true;
    if (!final && !bound.connector.captureRules(bound.credentials).multiCapture) {
      throw invalidField('body', '/final', 'final must be true (or omitted): multi-capture is not enabled on this payment service connection');
    }
    const remaining = row.authorized_amount - row.captured_amount - row.capture_reserved;
    const headroom = row.capture_limit - row.captured_amount - row.capture_reserved;
    const amount = body.amount ?? Math.max(remaining, 0);
    if (amount > headroom) {
      const over = row.capture_limit > row.authorized_amount ? ` (over-capture included: at most ${headroom})` : ` (at most ${Math.max(remaining, 0)} remains authorized)`;
      throw invalidField('body', '/amount', `amount exceeds what can be captured${over}`);
    }
    if (amount === 0 && row.captured_amount === 0 && final) throw invalidField('body', '/amount', 'amount must be greater than 0 for the first capture; void the transaction to release it');
    const updated = await repo.updateTransaction(tx, ctx.merchantAccountId, id, { capture_reserved: row.capture_reserved + amount, ...(final ? { capture_closed: true } : {}) });
    const attempt = await repo.insertAttempt(tx, {
      merchant_account_id: ctx.merchantAccountId, id: uuidv7(), transaction_id: id, operation: 'capture', status: 'in_flight', amount, final,
      payment_service_id: row.payment_service_id, external_identifier: body.external_identifier ?? null, next_check_at: nextCheckAt(0, new Date()),
    });
    return { row: updated, attempt, bound };
  });
}

/** `POST /transactions/{id}/capture`. Returns the capture record; the route picks the shape by `prefer`. */
export async function captureTransaction(ctx: RequestContext, id: string, body: CaptureTransactionBody, preferTransaction: boolean): Promise<OperationResult | Transaction> {
  const { row, attempt, bound } = await reserve(ctx, id, body);
  const result = await callConnector(
    () => bound.connector.capture({ idempotencyKey: attempt.id, credentials: bound.credentials, options: bound.options, payment: paymentHint(row), providerTransactionId: row.payment_service_transaction_id ?? '', reference: uuidToBase62(row.id), amount: attempt.amount, currency: row.currency, final: attempt.final }),
    ctx.log,
  );
  return withRequestTransaction(ctx, async (tx) => {
    const current = (await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true }))!;
    const now = new Date();
    const applied = result.ok ? applyCapture(current, result.value, attempt, now) : result.kind === 'timeout' ? null : applyCapture(current, { status: 'failed', errorCode: 'service_network_error', rawResponseCode: null, rawResponseDescription: null }, attempt, now);
    const updated = applied ? await repo.updateTransaction(tx, ctx.merchantAccountId, id, applied.patch) : current;
    const recorded = await repo.updateAttempt(tx, ctx.merchantAccountId, attempt.id, attemptPatch(result, applied, nextCheckAt(0, now), result.ok ? result.value.providerCaptureId : null));
    await repo.insertEvents(tx, [statusEvent(updated, current.status, now), attemptEvent(updated, attempt.id, 'capture', attempt.amount, result, applied, now)].filter((e) => e !== null));
    if (applied?.attemptStatus === 'succeeded') await emitTransaction(tx, ctx.deps, updated, 'transaction.captured');
    else await emitStatusChange(tx, ctx.deps, current, updated);
    await emitCapture(tx, ctx.deps, recorded, updated);
    await recordAudit(tx, ctx, 'captured', { type: 'transaction', id, name: `${updated.currency} ${attempt.amount}` });
    // Every capture settles on its own, final or not (docs/decisions.md, "Settlements").
    if (applied?.attemptStatus === 'succeeded') await scheduleSettlement(tx, ctx.deps, updated, attempt.id);
    const transaction = await transactionResource(tx, ctx, updated);
    if (preferTransaction) return transaction;
    const status = applied ? (applied.attemptStatus === 'succeeded' ? 'succeeded' : applied.attemptStatus === 'declined' ? 'declined' : applied.attemptStatus === 'pending' ? 'pending' : 'failed') : 'pending';
    return {
      type: 'transaction-capture', status, transaction,
      code: result.ok ? result.value.errorCode : result.kind === 'timeout' ? 'timeout' : 'service_network_error',
      raw_response_code: result.ok ? result.value.rawResponseCode : null,
      raw_response_description: result.ok ? result.value.rawResponseDescription : null,
    };
  });
}
