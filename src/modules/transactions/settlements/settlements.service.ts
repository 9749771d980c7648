import type { Compilable, Insertable } from 'kysely';
import type { Deps } from '../../../context.ts';
import type { ChargebacksTable, SettlementRow, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor, Tx } from '../../../db/transaction.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { scenarioOf } from '../../../connectors/mock/mock-card.scenarios.ts';
import { insertChargebacksQuery } from '../chargebacks/chargebacks.repo.ts';
import { sandboxDisputeLines } from '../chargebacks/chargebacks.service.ts';
import { activeSubscriptions } from '../../webhook-subscriptions/webhook-subscriptions.service.ts';
import { paymentHint } from '../connector-call.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { capturesAtAuthorization } from '../review/review-hold.ts';
import type { TransactionEventKind } from '../webhook-events.ts';
import { settlementRecordQuery, writeReportLines } from './settlement-writes.ts';
import { definitionOf, simulatesSettlements } from './settlement-source.ts';

/** Settlement of the sandbox: the payment service "reports" a capture settled after this delay. */
export function settlementDelayMs(deps: Deps): number {
  return deps.config.settlementDelaySeconds * 1000;
}

/**
 * Enqueues a sandbox settlement in the caller's transaction (it runs after commit): of one capture
 * (its attempt: a capture, or an authorization that captured), or, without one, of the captured
 * amount not settled yet (an authorize-and-capture transaction). Only for the sandbox connectors
 * (settlement-source.ts): a real connector's records come from its provider's reports.
 */
export async function scheduleSettlement(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  captureAttemptId?: string,
): Promise<void> {
  for (const query of settlementQueries(tx, deps, row, captureAttemptId)) await query.execute();
  deps.queue.pokeSoon();
}

/** `scheduleSettlement`'s insert (none for a real connector), for a caller that runs it with its other writes (src/db/write-batch.ts); poke the queue after. */
export function settlementQueries(db: Executor, deps: Deps, row: TransactionRow, captureAttemptId?: string) {
  if (!simulatesSettlements(deps, row)) return [];
  return [
    deps.queue.enqueueQuery(
      db,
      'settle-transaction',
      {
        merchant_account_id: row.merchant_account_id,
        transaction_id: row.id,
        ...(captureAttemptId ? { capture_id: captureAttemptId } : {}),
      },
      {
        jobKey: captureAttemptId
          ? `settle-capture:${row.merchant_account_id}:${captureAttemptId}`
          : `settle-transaction:${row.merchant_account_id}:${row.id}`,
        runAt: new Date(Date.now() + settlementDelayMs(deps)),
      },
    ),
  ];
}

/**
 * Pure: how much a capture settlement records. A capture settles its own amount (an authorization
 * that captured: the authorized amount); without a capture, what is captured and not settled yet.
 * Never more than that rest, so captures settled add up to at most the captured amount.
 */
export function captureSettlementAmount(
  row: Pick<TransactionRow, 'captured_amount' | 'authorized_amount'>,
  capture: { operation: string; amount: number } | null,
  captureSettled: number,
): number {
  const rest = Math.max(row.captured_amount - captureSettled, 0);
  if (!capture) return rest;
  return Math.min(capture.operation === 'capture' ? capture.amount : row.authorized_amount, rest);
}

/** The settlement amount of one capture (its attempt, `attempt`); 0 when there is nothing (left) to settle. */
function amountToSettle(
  row: TransactionRow,
  captureAttemptId: string | null,
  attempt: repo.SettledAttempt | null,
  settlements: SettlementRow[],
): number {
  const captureSettled = settlements.filter((r) => r.refund_id === null).reduce((sum, r) => sum + r.amount, 0);
  if (!captureAttemptId) return captureSettlementAmount(row, null, captureSettled);
  // A capture, or the authorization of an authorize-and-capture transaction.
  const captures =
    attempt?.operation === 'capture' || (attempt?.operation === 'authorize' && capturesAtAuthorization(row));
  if (!attempt || attempt.transaction_id !== row.id || attempt.status !== 'succeeded' || !captures) return 0;
  return captureSettlementAmount(row, attempt, captureSettled);
}

/** The sandbox provider's daily settlement report a record comes from. */
function sandboxReport(now: Date) {
  const day = now.toISOString().slice(0, 10);
  return {
    payment_service_report_id: `sandbox-report-${day}`,
    payment_service_report_file_ids: JSON.stringify([`sandbox-settlement-${day}.csv`]),
    posted_at: now,
    ingested_at: now,
  };
}

/** Sandbox interchange-like commission: 1.5 % + 10 minor units, rounded down. */
export const commissionOf = (amount: number) => Math.floor((amount * 15) / 1000) + 10;

/**
 * Pure: whether `settlements` (a transaction's, read under its row lock) already hold the one this
 * run would write: of the refund `refundId`, of the capture `captureAttemptId`, or (both null) of
 * the captured amount. The key of `settlements_once_idx`.
 */
export function alreadySettled(
  settlements: ReadonlyArray<Pick<SettlementRow, 'refund_id' | 'capture_attempt_id'>>,
  captureAttemptId: string | null,
  refundId: string | null = null,
): boolean {
  const key = refundId ?? captureAttemptId;
  return settlements.some((r) => (r.refund_id ?? r.capture_attempt_id ?? null) === key);
}

/** The transaction `FOR UPDATE`, without an attempt. */
async function lockedAlone(tx: Tx, merchantAccountId: string, transactionId: string) {
  const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
  return row && { row, attempt: null };
}

/**
 * Settles one capture (or, without `captureAttemptId`, the captured amount not settled yet) once:
 * a settlement record, the transaction's `settled` fields (`settled_amount` is every settlement so
 * far, captures net of refunds), an event. The first settlement of a dispute test card also
 * posts a chargeback (and, for the reversed one, its reversal) on the same report. Idempotent: a second run finds the settlement and changes nothing.
 *
 * The transaction's row lock is taken first, by every settlement of it (this and `settleRefund`),
 * so the settlements read under it are all there are: the writes (the record, the transaction, the
 * webhook events rendered from the row the update leaves, the history) then go in one statement
 * (src/db/write-batch.ts). A record written anyway by another path would fail that statement on
 * `settlements_once_idx`, and the job's retry would find it.
 */
export async function settleTransaction(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  captureAttemptId: string | null = null,
): Promise<void> {
  const subscriptions = await activeSubscriptions(deps.db, deps, merchantAccountId);
  await withTransaction(deps.db, async (tx) => {
    // The capture's attempt with the row lock (lockTransactionWithAttempt says why it may be).
    const locked = captureAttemptId
      ? await repo.lockTransactionWithAttempt(tx, merchantAccountId, transactionId, captureAttemptId)
      : await lockedAlone(tx, merchantAccountId, transactionId);
    // A job enqueued before its connector read its provider's reports invents nothing either.
    if (!locked || locked.row.captured_amount === 0 || !simulatesSettlements(deps, locked.row)) return;
    const { row, attempt } = locked;
    const now = new Date();
    const settlements = await repo.listSettlements(tx, merchantAccountId, row.id);
    if (alreadySettled(settlements, captureAttemptId)) return;
    // Gross capture here; refunds settle on their own (negative) records, counted in settled_amount.
    const amount = amountToSettle(row, captureAttemptId, attempt, settlements);
    if (amount <= 0) return;
    const settlementId = uuidv7();
    // The sandbox's issuer disputes the dispute test card once it settles.
    const definition = definitionOf(row);
    const scenario = definition === 'mock-card' ? scenarioOf(row.authorized_amount, paymentHint(row)).kind : null;
    const disputed = !row.settled && (scenario === 'dispute' || scenario === 'dispute-reversed');
    const reversed = disputed && scenario === 'dispute-reversed';
    const net = settlements.reduce((sum, r) => sum + r.amount, amount);
    const patch = {
      settled: true,
      settled_amount: net,
      settled_currency: row.currency,
      ...(disputed ? { disputed: true } : {}),
    };
    const kinds: TransactionEventKind[] = [
      'transaction.settled',
      ...(disputed ? ['transaction.disputed' as const] : []),
      ...(reversed ? ['transaction.chargeback_reversed' as const] : []),
    ];
    const report = sandboxReport(now);
    // The same report posts the dispute's lines (GET .../chargebacks, .../chargeback-reversals).
    const [chargeback, reversal] = disputed ? sandboxDisputeLines(row, report, reversed) : [];
    const events = [
      event(
        row,
        'payment-connector-report-transaction-settled',
        { settlement_id: settlementId, capture_id: captureAttemptId, amount, currency: row.currency },
        now,
      ),
    ];
    if (chargeback)
      events.push(
        event(
          row,
          'payment-connector-report-chargeback-posted',
          { chargeback_id: chargeback.id, amount: row.captured_amount, currency: row.currency, reason: 'fraudulent' },
          now,
        ),
      );
    if (reversal)
      events.push(
        event(
          row,
          'payment-connector-report-chargeback-reversal-posted',
          { chargeback_reversal_id: reversal.id, amount: row.captured_amount, currency: row.currency },
          now,
        ),
      );
    const record = {
      merchant_account_id: merchantAccountId,
      id: settlementId,
      transaction_id: row.id,
      refund_id: null,
      capture_attempt_id: captureAttemptId,
      payment_service_id: row.payment_service_id,
      currency: row.currency,
      amount,
      commission: commissionOf(amount),
      ...report,
    };
    await writeReportLines(
      tx,
      deps,
      subscriptions,
      [settlementRecordQuery(tx, record), ...disputeWrites(tx, [chargeback, reversal])],
      { row, patch, now, kinds },
      events,
    );
  });
}

/** The insert of the dispute lines a settlement report posts, if any. */
function disputeWrites(tx: Tx, lines: Array<Insertable<ChargebacksTable> | undefined>): Array<Compilable<unknown>> {
  const posted = lines.filter((line): line is Insertable<ChargebacksTable> => line !== undefined);
  return posted.length > 0 ? [insertChargebacksQuery(tx, posted)] : [];
}

/** Enqueues the sandbox settlement of a succeeded refund (a refund settlement) of `row` in the caller's transaction; none for a real connector. */
export async function scheduleRefundSettlement(
  tx: Tx,
  deps: Deps,
  refund: { merchant_account_id: string; transaction_id: string; id: string },
  row: TransactionRow,
): Promise<void> {
  for (const query of refundSettlementQueries(tx, deps, refund, row)) await query.execute();
  deps.queue.pokeSoon();
}

/** `scheduleRefundSettlement`'s insert (none for a real connector), for a caller that runs it with its other writes (src/db/write-batch.ts). */
export function refundSettlementQueries(
  db: Executor,
  deps: Deps,
  refund: { merchant_account_id: string; transaction_id: string; id: string },
  row: TransactionRow,
) {
  if (!simulatesSettlements(deps, row)) return [];
  return [
    deps.queue.enqueueQuery(
      db,
      'settle-transaction',
      { merchant_account_id: refund.merchant_account_id, transaction_id: refund.transaction_id, refund_id: refund.id },
      {
        jobKey: `settle-refund:${refund.merchant_account_id}:${refund.id}`,
        runAt: new Date(Date.now() + settlementDelayMs(deps)),
      },
    ),
  ];
}

/**
 * A refund settlement: a settlement record of the refund (negative amount, no commission) once,
 * the refund `settled`, and, when the transaction has settled already, its net `settled_amount`
 * goes down by the refund.
 * Written as `settleTransaction` writes, under the transaction's row lock.
 */
export async function settleRefund(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  refundId: string,
): Promise<void> {
  const subscriptions = await activeSubscriptions(deps.db, deps, merchantAccountId);
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    const refund = await repo.findRefund(tx, merchantAccountId, refundId, transactionId);
    if (
      !row ||
      !refund ||
      refund.status !== 'succeeded' ||
      refund.target_type !== 'payment-method' ||
      !simulatesSettlements(deps, row)
    )
      return;
    if (alreadySettled(await repo.listSettlements(tx, merchantAccountId, row.id), null, refund.id)) return;
    const now = new Date();
    const settlementId = uuidv7();
    const record = {
      merchant_account_id: merchantAccountId,
      id: settlementId,
      transaction_id: row.id,
      refund_id: refund.id,
      payment_service_id: row.payment_service_id,
      currency: refund.currency,
      amount: -refund.amount,
      commission: 0,
      ...sandboxReport(now),
    };
    const update = row.settled
      ? {
          row,
          patch: { settled_amount: row.settled_amount - refund.amount },
          now,
          kinds: ['transaction.settled' as const],
        }
      : null;
    const events = [
      event(
        row,
        'payment-connector-report-transaction-settled',
        { settlement_id: settlementId, refund_id: refund.id, amount: -refund.amount, currency: refund.currency },
        now,
      ),
    ];
    await writeReportLines(
      tx,
      deps,
      subscriptions,
      [settlementRecordQuery(tx, record), repo.markRefundSettledQuery(tx, merchantAccountId, refund.id, now)],
      update,
      events,
    );
  });
}
