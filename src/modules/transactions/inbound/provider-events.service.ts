import type { InboundWebhookAction } from '../../../connectors/connector-webhooks.ts';
import type { SyncOutcome } from '../../../connectors/connector.ts';
import type { Deps } from '../../../context.ts';
import type { AttemptRow, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Tx } from '../../../db/transaction.ts';
import { base62ToUuid } from '../../../lib/base62.ts';
import { settleAttempt } from '../reconcile/reconcile.service.ts';
import { lateCaptureOf, reportsCapture, scheduleLateRefund } from '../refund/late-refund.service.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { emitTransaction } from '../webhook-events.ts';
import { capturesAtAuthorization } from '../review/review-hold.ts';

/**
 * What a provider's webhook reports, applied through the same state machine as our own calls: an
 * open attempt (a call that got no final answer) is settled as a status answer would settle it
 * (reconcile.service.ts `settleAttempt`), and chargebacks mark the transaction disputed. An action
 * about something already final changes nothing (our own answer came first): it is recorded.
 */

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * What one action did: `applied`, `already_final` (nothing open to settle), `unknown_transaction`,
 * `late_capture_refund_scheduled` (a sale paid after its transaction closed unpaid: refunded).
 */
export interface AppliedProviderAction {
  kind: InboundWebhookAction['kind'];
  provider_transaction_id: string;
  transaction_id: string | null;
  result: 'applied' | 'already_final' | 'still_open' | 'unknown_transaction' | 'late_capture_refund_scheduled';
}

const answerOf = (action: InboundWebhookAction, status: SyncOutcome['status']): SyncOutcome => ({
  status,
  providerTransactionId: action.providerTransactionId,
  errorCode: action.errorCode ?? null,
  rawResponseCode: action.rawResponseCode,
  rawResponseDescription: action.rawResponseDescription,
});

/** The open attempt an action settles, and the status answer it amounts to; null: nothing open. */
function targetOf(
  row: TransactionRow,
  open: AttemptRow[],
  action: InboundWebhookAction,
): { attempt: AttemptRow; answer: SyncOutcome } | null {
  const of = (operations: string[], status: SyncOutcome['status'], match: (a: AttemptRow) => boolean = () => true) => {
    const attempt = open.find((a) => operations.includes(a.operation) && match(a));
    return attempt ? { attempt, answer: answerOf(action, status) } : null;
  };
  // A refund event names the provider's refund: an attempt that already knows its refund id must match it.
  const sameRefund = (a: AttemptRow) =>
    !action.providerReferenceId || a.provider_reference === null || a.provider_reference === action.providerReferenceId;
  switch (action.kind) {
    case 'authorization_succeeded':
      return of(['authorize'], capturesAtAuthorization(row) ? 'captured' : 'authorized');
    case 'authorization_failed':
      return of(['authorize'], 'declined');
    // A capture, an authorize-and-capture whose capture was pending at the provider, or a sale the
    // buyer completed at the provider (PIX: paid while the transaction waited for its buyer).
    case 'capture_succeeded':
      return (
        of(['capture'], 'captured') ??
        (row.status === 'capture_pending' || row.status === 'buyer_approval_pending'
          ? of(['authorize'], 'captured')
          : null)
      );
    // A capture, or the collection an authorize-and-capture started (direct debit, decision 0125).
    case 'capture_failed':
      return of(['capture'], 'failed') ?? (row.status === 'capture_pending' ? of(['authorize'], 'failed') : null);
    case 'void_succeeded':
      return of(['void', 'cancel'], 'voided');
    case 'refund_succeeded':
      return of(['refund'], 'refunded', sameRefund);
    case 'refund_failed':
      return of(['refund'], 'failed', sameRefund);
    default:
      return null;
  }
}

/**
 * An authorization event for a transaction that does not know its provider id yet (paid on the
 * provider's page, or its answer lost), found by our reference the provider signed, at this
 * payment service only.
 */
async function byReference(
  tx: Tx,
  scope: { merchantAccountId: string; paymentServiceId: string },
  action: InboundWebhookAction,
): Promise<TransactionRow | undefined> {
  if (!action.transactionReference || !action.kind.startsWith('authorization_')) return undefined;
  let id: string;
  try {
    id = base62ToUuid(action.transactionReference);
  } catch {
    return undefined;
  }
  const row = await repo.findTransaction(tx, scope.merchantAccountId, id);
  return row?.payment_service_id === scope.paymentServiceId ? row : undefined;
}

/** A chargeback: the transaction is disputed from the first report on; a reversal and a loss are events too. */
async function applyChargeback(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  action: InboundWebhookAction,
  now: Date,
): Promise<void> {
  const locked = (await repo.findTransaction(tx, row.merchant_account_id, row.id, { forUpdate: true }))!;
  const updated = locked.disputed
    ? locked
    : await repo.updateTransaction(tx, row.merchant_account_id, row.id, { disputed: true });
  const amount = {
    amount: action.amount ?? locked.captured_amount,
    currency: action.currency ?? locked.currency,
    dispute_id: action.providerReferenceId,
    reason: action.rawResponseCode,
  };
  if (action.kind === 'chargeback_won') {
    await emitTransaction(tx, deps, updated, 'transaction.chargeback_reversed');
    await repo.insertEvents(tx, [event(row, 'payment-connector-report-chargeback-reversal-posted', amount, now)]);
    return;
  }
  // Opened, or lost: "a dispute was opened or changed" (docs/webhooks.md).
  await emitTransaction(tx, deps, updated, 'transaction.disputed');
  await repo.insertEvents(tx, [
    event(
      row,
      'payment-connector-report-chargeback-posted',
      { ...amount, outcome: action.kind === 'chargeback_lost' ? 'lost' : 'opened' },
      now,
    ),
  ]);
}

/**
 * A sale the provider reports captured after its transaction closed unpaid (nothing open to
 * settle): refunded in full by the `refund-late-capture` job (refund/late-refund.service.ts). A
 * connector that can void leaves it to the void of late authorizations (decision 0053).
 */
async function refundLateCapture(
  tx: Tx,
  deps: Deps,
  scope: { paymentServiceId: string; canVoid: boolean },
  row: TransactionRow,
  action: InboundWebhookAction,
  log: Log,
): Promise<boolean> {
  if (scope.canVoid || !reportsCapture(row, action)) return false;
  const late = await lateCaptureOf(tx, row, scope.paymentServiceId, action.providerTransactionId);
  if (!late) return false;
  await scheduleLateRefund(tx, deps, log, row, late, action.providerTransactionId, 'webhook');
  return true;
}

/**
 * Applies one action of a verified provider event, in the caller's database transaction (with the
 * event's deduplication row). `overCapture`: the connector's capability, as for reconciliation;
 * `scope.canVoid`: its `void` capability (a sale paid late is refunded only where it cannot be voided).
 */
export async function applyProviderAction(
  tx: Tx,
  deps: Deps,
  scope: { merchantAccountId: string; paymentServiceId: string; eventId: string; canVoid: boolean },
  action: InboundWebhookAction,
  log: Log,
  overCapture: boolean,
): Promise<AppliedProviderAction> {
  const done = (transactionId: string | null, result: AppliedProviderAction['result']): AppliedProviderAction => ({
    kind: action.kind,
    provider_transaction_id: action.providerTransactionId,
    transaction_id: transactionId,
    result,
  });
  const row =
    (await repo.findTransactionByProviderId(
      tx,
      scope.merchantAccountId,
      scope.paymentServiceId,
      action.providerTransactionId,
    )) ?? (await byReference(tx, scope, action));
  if (!row) return done(null, 'unknown_transaction');
  const now = new Date();
  let result: AppliedProviderAction['result'];
  if (action.kind.startsWith('chargeback_')) {
    await applyChargeback(tx, deps, row, action, now);
    result = 'applied';
  } else {
    const target = targetOf(row, await repo.listOpenAttempts(tx, scope.merchantAccountId, row.id), action);
    // settleAttempt locks the attempt, then the transaction: the order every settling path uses.
    const settled = target
      ? await settleAttempt(tx, deps, target.attempt.id, scope.merchantAccountId, target.answer, log, now, overCapture)
      : null;
    result = !settled ? 'already_final' : settled.final ? 'applied' : 'still_open';
    if (!target && (await refundLateCapture(tx, deps, scope, row, action, log)))
      result = 'late_capture_refund_scheduled';
  }
  await repo.insertEvents(tx, [
    event(
      row,
      'payment-connector-transaction-webhook-processed',
      { event_id: scope.eventId, kind: action.kind, result, provider_reference_id: action.providerReferenceId },
      now,
    ),
  ]);
  return done(row.id, result);
}
