import type { SyncOutcome } from '../../../connectors/connector.ts';
import { storeOnApproval } from '../create/store-on-approval.ts';
import type { Deps, RequestContext } from '../../../context.ts';
import type { AttemptRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { AppError, notFound } from '../../../errors/app-error.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { callConnector, connectorOfTransaction, paymentHint } from '../connector-call.ts';
import { applyAuthorization, applyCapture, applyRefund, applyVoid, nextCheckAt, type Patch } from '../outcomes.ts';
import { scheduleLateVoid } from '../void/late-void.service.ts';
import { recordLateRefundOutcome } from '../refund/late-refund.service.ts';
import { checkLateSale } from '../refund/late-sale-check.ts';
import { reverseRedeemed, systemContext } from '../gift-card-tender.ts';
import { overCaptureLimit } from '../../merchant-accounts/merchant-accounts.service.ts';
import { scheduleRefundSettlement, scheduleSettlement } from '../settlements/settlements.service.ts';
import { scheduleSimulatedEvents } from '../simulations/simulated-events.ts';
import { collectionResolution } from './collection-resolution.ts';
import { event, statusEvent } from '../transaction-events.ts';
import { intentOutcome, nextStatus, TransitionError } from '../transaction-status.ts';
import type { Transaction } from '../transaction.schema.ts';
import * as repo from '../transactions.repo.ts';
import { emitCapture, emitRefund, emitStatusChange, emitTransaction, refundKind } from '../webhook-events.ts';
import { transactionResource } from '../transaction-view.ts';
import { incrementPatch } from '../increment/increment-outcome.ts';
import { schemeTransactionIdWrite } from '../create/authorization-answer.ts';
import { authorizationIntent } from '../review/review-hold.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/** Pure: what a status answer means for one open attempt; null: still open. */
function resolution(
  row: TransactionRow,
  attempt: AttemptRow,
  answer: SyncOutcome,
  now: Date,
): { patch: Patch; status: AttemptRow['status']; refundStatus?: string } | null {
  const codes = {
    errorCode: answer.errorCode,
    rawResponseCode: answer.rawResponseCode,
    rawResponseDescription: answer.rawResponseDescription,
  };
  switch (attempt.operation) {
    case 'authorize': {
      if (attempt.status === 'pending' && row.status === 'capture_pending')
        return collectionResolution(row, answer, now);
      // `buyer_approval_pending` is not in the map: the attempt stays open.
      const map = {
        authorized: 'authorized',
        captured: 'captured',
        capture_pending: 'capture_pending',
        declined: 'declined',
        failed: 'failed',
        not_found: 'failed',
      } as const;
      const status = map[answer.status as keyof typeof map];
      if (!status) return null;
      const outcome = {
        ...codes,
        ...(answer.status === 'not_found' ? { errorCode: 'service_network_error' } : {}),
        status,
        providerTransactionId: answer.providerTransactionId,
        authResponseCode: null,
        avsResponseCode: null,
        cvvResponseCode: null,
        schemeTransactionId: answer.schemeTransactionId ?? null,
        merchantAdviceCode: null,
        approvalUrl: null,
        additionalIdentifiers: {},
      };
      const applied = applyAuthorization(row, outcome, now, 0);
      return { patch: applied.patch, status: applied.attemptStatus };
    }
    case 'capture': {
      // `not_found`: the capture never reached the provider (a process killed before the call): it failed, the authorization stands.
      const s =
        answer.status === 'captured'
          ? 'succeeded'
          : answer.status === 'declined' || answer.status === 'failed'
            ? answer.status
            : answer.status === 'not_found'
              ? 'failed'
              : null;
      if (!s) return null;
      const applied = applyCapture(
        row,
        { status: s, ...codes, ...(answer.status === 'not_found' ? { errorCode: 'service_network_error' } : {}) },
        attempt,
        now,
      );
      return { patch: applied.patch, status: applied.attemptStatus };
    }
    case 'void': {
      // `not_found`: the void never reached the provider: the authorization stands (capturing reopens).
      const s =
        answer.status === 'voided'
          ? 'succeeded'
          : answer.status === 'authorized' ||
              answer.status === 'declined' ||
              answer.status === 'failed' ||
              answer.status === 'not_found'
            ? 'failed'
            : null;
      if (!s) return null;
      // The void of a late authorization: the transaction is closed already and stays as it is.
      if (attempt.compensates_attempt_id) return { patch: {}, status: s };
      const applied = applyVoid(row, { status: s }, now);
      return { patch: applied.patch, status: applied.attemptStatus };
    }
    case 'increment': {
      const s =
        answer.status === 'authorized'
          ? 'succeeded'
          : answer.status === 'declined'
            ? 'declined'
            : answer.status === 'failed' || answer.status === 'not_found'
              ? 'failed'
              : null;
      if (!s) return null;
      const outcome = incrementPatch(row, s, attempt.amount);
      return { patch: outcome.patch, status: outcome.attemptStatus };
    }
    case 'refund': {
      const s =
        answer.status === 'refunded'
          ? 'succeeded'
          : answer.status === 'declined' || answer.status === 'failed' || answer.status === 'not_found'
            ? 'failed'
            : null;
      if (!s) return null;
      // The refund of a late capture: the transaction captured nothing and stays as it is.
      if (attempt.compensates_attempt_id) return { patch: {}, status: s };
      const applied = applyRefund(row, { status: s }, attempt.amount);
      return { patch: applied.patch, status: applied.attemptStatus, refundStatus: applied.refundStatus };
    }
    default:
      return null;
  }
}

/** The buyer never approved in time: the transaction fails (the provider's payment simply lapses). */
function approvalTimedOut(row: TransactionRow, now: Date): { patch: Patch; status: AttemptRow['status'] } {
  const status = nextStatus(row.status, 'authorization_failed');
  return {
    status: 'failed',
    patch: {
      status,
      intent_outcome: intentOutcome(row.intent, status),
      error_code: 'buyer_approval_timeout',
      buyer_approval_timedout_at: now,
    },
  };
}

/** What settling an attempt did: whether the attempt is now final, and the transaction's row after it. */
interface Settled {
  final: boolean;
  row: TransactionRow | null;
}

/**
 * Applies a status answer to one attempt under the row locks (also the inbound provider webhooks'
 * way into the state machine: inbound/provider-events.service.ts). `overCapture`: the connector allows
 * capturing above the authorization, so an authorization found here gets the merchant account's
 * allowance, as one answered at once does (authorization-answer.ts).
 */
export async function settleAttempt(
  tx: Tx,
  deps: Deps,
  attemptId: string,
  merchantAccountId: string,
  answer: SyncOutcome,
  log: Log,
  now: Date,
  overCapture: boolean,
): Promise<Settled> {
  const attempt = await repo.findAttempt(tx, merchantAccountId, attemptId, { forUpdate: true });
  const row =
    attempt && (await repo.findTransaction(tx, merchantAccountId, attempt.transaction_id, { forUpdate: true }));
  if (!attempt || !row || !['in_flight', 'unknown', 'pending'].includes(attempt.status))
    return { final: true, row: row ?? null };
  let resolved: ReturnType<typeof resolution>;
  let lateAuthorization = false;
  try {
    resolved = resolution(row, attempt, answer, now);
  } catch (error) {
    if (!(error instanceof TransitionError)) throw error;
    // A late answer the transaction can no longer take (it was canceled meanwhile): kept on record;
    // money authorized at the provider for it is released by a void (late-void.service.ts).
    log.warn(
      { transactionId: row.id, attemptId, answer: answer.status },
      'late connector outcome ignored by the state machine',
    );
    lateAuthorization =
      attempt.operation === 'authorize' && ['authorized', 'captured', 'capture_pending'].includes(answer.status);
    resolved = { patch: {}, status: lateAuthorization ? 'succeeded' : 'failed' };
  }
  if (
    resolved &&
    attempt.operation === 'authorize' &&
    overCapture &&
    resolved.patch.status === 'authorization_succeeded'
  ) {
    Object.assign(resolved.patch, {
      capture_limit: overCaptureLimit(merchantAccountId, row.amount - row.gift_card_amount),
    });
  }
  const events = [
    event(
      row,
      'transaction-sync-event',
      { attempt_id: attemptId, operation: attempt.operation, answer: answer.status, error_code: answer.errorCode },
      now,
    ),
  ];
  if (!resolved && row.status === 'buyer_approval_pending' && row.approval_expires_at) {
    if (row.approval_expires_at > now) {
      // Still waiting for the buyer: look again when the approval expires.
      await repo.updateAttempt(tx, merchantAccountId, attemptId, {
        checks: attempt.checks + 1,
        next_check_at: row.approval_expires_at,
      });
      await repo.insertEvents(tx, events);
      return { final: false, row };
    }
    resolved = approvalTimedOut(row, now);
  }
  if (!resolved) {
    await repo.updateAttempt(tx, merchantAccountId, attemptId, {
      checks: attempt.checks + 1,
      next_check_at: nextCheckAt(attempt.checks + 1, now),
    });
    await repo.insertEvents(tx, events);
    return { final: false, row };
  }
  let updated =
    Object.keys(resolved.patch).length > 0
      ? await repo.updateTransaction(tx, merchantAccountId, row.id, resolved.patch)
      : row;
  if (attempt.operation === 'authorize' && updated !== row) updated = await storeOnApproval(tx, deps, updated, answer);
  // A stored card's first approved customer-initiated payment, approved here (after 3DS at the
  // provider, or found again), gives the card its scheme transaction id (guarded: never replaced).
  if (attempt.operation === 'authorize' && updated !== row)
    await schemeTransactionIdWrite(tx, updated, true, now)?.execute();
  const recorded = await repo.updateAttempt(tx, merchantAccountId, attemptId, {
    status: resolved.status,
    checks: attempt.checks + 1,
    // Still open at the provider (a direct debit collecting for days, a refund processing): asked
    // again on the reconciliation schedule, so a provider webhook that never comes loses nothing.
    next_check_at: resolved.status === 'pending' ? nextCheckAt(attempt.checks + 1, now) : null,
    provider_reference: attempt.provider_reference ?? answer.providerTransactionId,
    ...(lateAuthorization ? { error_code: 'late_outcome' } : {}),
  });
  if (lateAuthorization)
    await scheduleLateVoid(tx, deps, row, attemptId, attempt.provider_reference ?? answer.providerTransactionId);
  if (attempt.operation === 'refund' && attempt.compensates_attempt_id && resolved.status !== 'pending')
    await recordLateRefundOutcome(tx, log, row, attempt, { ...answer, status: resolved.status }, now);
  if (attempt.refund_id && resolved.refundStatus) {
    const refund = await repo.updateRefund(tx, merchantAccountId, attempt.refund_id, {
      status: resolved.refundStatus as never,
      error_code: answer.errorCode,
    });
    if (refund.status !== 'processing') await emitRefund(tx, deps, refund, updated, refundKind(refund.status));
    if (refund.status === 'succeeded') await scheduleRefundSettlement(tx, deps, refund, updated);
  }
  // A late authorization's void changes nothing the merchant was told: no transaction.voided.
  const raised = attempt.operation === 'increment' && updated.authorized_amount > row.authorized_amount;
  const specific =
    resolved.status === 'succeeded'
      ? attempt.operation === 'capture'
        ? 'transaction.captured'
        : attempt.operation === 'void' && !attempt.compensates_attempt_id
          ? 'transaction.voided'
          : raised
            ? 'transaction.updated'
            : null
      : null;
  if (specific) await emitTransaction(tx, deps, updated, specific);
  else await emitStatusChange(tx, deps, row, updated);
  if (attempt.operation === 'capture') await emitCapture(tx, deps, recorded, updated);
  const change = statusEvent(updated, row.status, now);
  await repo.insertEvents(tx, change ? [...events, change] : events);
  // Every capture settles on its own, final or not (decision 0054).
  if (updated.captured_amount > row.captured_amount) await scheduleSettlement(tx, deps, updated, attemptId);
  // A sandbox simulator's payment now waiting (a direct debit collecting): its provider's later report.
  if (updated.status !== row.status) await scheduleSimulatedEvents(tx, deps, updated);
  return { final: true, row: updated };
}

/** Asks the connector about one open attempt and applies the answer. */
async function checkAttempt(
  deps: Deps,
  attempt: AttemptRow,
  log: Log,
  strict: boolean,
  now = new Date(),
  returnParams: Record<string, string> | null = null,
): Promise<boolean> {
  const row = await repo.findTransaction(deps.db, attempt.merchant_account_id, attempt.transaction_id);
  if (!row) return true;
  const bound = await connectorOfTransaction(deps.db, deps, row);
  if (!bound.connector.sync) {
    if (strict)
      throw new AppError(
        'bad_request',
        `The payment service ${bound.connector.definition.id} cannot report a transaction's status (no sync)`,
      );
    return false;
  }
  const sync = bound.connector.sync.bind(bound.connector);
  const result = await callConnector(
    () =>
      sync({
        idempotencyKey: attempt.id,
        credentials: bound.credentials,
        options: bound.options,
        operation: attempt.operation === 'cancel' ? 'void' : attempt.operation,
        providerTransactionId: attempt.provider_reference ?? row.payment_service_transaction_id,
        paymentProviderTransactionId: row.payment_service_transaction_id,
        reference: uuidToBase62(attempt.refund_id ?? row.id),
        amount: attempt.amount,
        currency: row.currency,
        payment: paymentHint(row),
        intent: authorizationIntent(row),
        buyerApproved: attempt.approval_decision === null ? null : attempt.approval_decision === 'approved',
        returnParams,
      }),
    log,
  );
  if (!result.ok) {
    await repo.updateAttempt(deps.db, attempt.merchant_account_id, attempt.id, {
      checks: attempt.checks + 1,
      next_check_at: nextCheckAt(attempt.checks + 1, now),
    });
    return false;
  }
  const overCapture = bound.connector.definition.capabilities.overCapture;
  const settled = await withTransaction(deps.db, (tx) =>
    settleAttempt(tx, deps, attempt.id, attempt.merchant_account_id, result.value, log, now, overCapture),
  );
  // A multi-tender payment whose card authorization ended declined, failed or timed out gives its gift cards back.
  if (settled.final && settled.row && attempt.operation === 'authorize')
    await reverseRedeemed(systemContext(deps, attempt.merchant_account_id, 'reconcileAttempts', log), settled.row);
  return settled.final;
}

/** The reconciliation job: every due open attempt, a batch at a time. Returns how many became final. */
export async function reconcileDueAttempts(
  deps: Deps,
  now: Date,
  log: Log = { warn: () => undefined, info: () => undefined },
): Promise<number> {
  let settled = 0;
  const due = await repo.listDueAttempts(deps.db, now, 100);
  for (const attempt of due) {
    try {
      if (await checkAttempt(deps, attempt, log, false, now)) settled++;
    } catch (error) {
      log.warn({ err: error, attemptId: attempt.id }, 'reconciliation of an attempt failed; it is tried again later');
      await repo.updateAttempt(deps.db, attempt.merchant_account_id, attempt.id, {
        checks: attempt.checks + 1,
        next_check_at: nextCheckAt(attempt.checks + 1, now),
      });
    }
  }
  return settled;
}

/**
 * Asks the connector about one attempt now (after the buyer chose on an approval page, or came back
 * from the provider's own page with `returnParams`, which the connector completes the payment with).
 */
export async function checkPendingAttempt(
  deps: Deps,
  merchantAccountId: string,
  attemptId: string,
  returnParams: Record<string, string> | null = null,
): Promise<void> {
  const attempt = await repo.findAttempt(deps.db, merchantAccountId, attemptId);
  if (attempt)
    await checkAttempt(deps, attempt, { warn: () => undefined, info: () => undefined }, true, new Date(), returnParams);
}

/** `POST /transactions/{id}/sync`: asks the payment service about every open call of the transaction now. */
export async function syncTransaction(ctx: RequestContext, id: string): Promise<Transaction> {
  const row = await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('transaction', id);
  const bound = await connectorOfTransaction(ctx.deps.db, ctx.deps, row);
  if (!bound.connector.sync)
    throw new AppError(
      'bad_request',
      `The payment service ${bound.connector.definition.id} cannot report a transaction's status (no sync)`,
    );
  for (const attempt of await repo.listOpenAttempts(ctx.deps.db, ctx.merchantAccountId, id))
    await checkAttempt(ctx.deps, attempt, ctx.log, true);
  await checkLateSale(ctx.deps, ctx.merchantAccountId, id, null, ctx.log);
  const current = (await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, id))!;
  return await transactionResource(ctx.deps.db, ctx, current);
}
