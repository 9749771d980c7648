import type { Insertable } from 'kysely';
import type { Deps } from '../../../context.ts';
import type {
  ChargebacksTable,
  NewTransactionEvent,
  SettlementRow,
  SettlementsTable,
  TransactionRow,
} from '../../../db/schema-transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { scenarioOf } from '../../../connectors/mock/mock-card.scenarios.ts';
import { sandboxDisputeLines } from '../chargebacks/chargebacks.service.ts';
import { paymentHint } from '../connector-call.ts';
import { event } from '../transaction-events.ts';
import type { SettledAttempt } from '../transactions.repo.ts';
import { capturesAtAuthorization } from '../review/review-hold.ts';
import type { TransactionEventKind } from '../webhook-events.ts';
import type { SettledChange } from './settlement-writes.ts';
import { definitionOf, simulatesSettlements } from './settlement-source.ts';

/**
 * What the sandbox's settlement of one capture writes, worked out from what was read under the
 * transaction's row lock: by one settlement (settlements.service.ts `settleTransaction`) or by a
 * batch of them (settle-captures.ts), the same.
 */

/** The writes of one capture settlement: its record, the dispute lines the report posts, the transaction's change, the history. */
export interface CaptureSettlement {
  record: Insertable<SettlementsTable>;
  disputes: Array<Insertable<ChargebacksTable>>;
  change: SettledChange;
  events: NewTransactionEvent[];
}

/** Whether the sandbox settles anything of this transaction (read under its lock): something captured, by a simulated connector. */
export function settlesCaptures(deps: Deps, row: TransactionRow): boolean {
  // A job enqueued before its connector read its provider's reports invents nothing either.
  return row.captured_amount > 0 && simulatesSettlements(deps, row);
}

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
  attempt: SettledAttempt | null,
  settlements: readonly SettlementRow[],
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
export function sandboxReport(now: Date) {
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
 * The settlement of the capture `captureAttemptId` (null: of the captured amount not settled yet)
 * of `row`, whose `settlements` so far were read under its lock; null when it is settled already
 * or there is nothing (left) to settle. The first settlement of a dispute test card also posts a
 * chargeback (and, for the reversed one, its reversal) on the same report.
 */
export function captureSettlement(
  row: TransactionRow,
  captureAttemptId: string | null,
  attempt: SettledAttempt | null,
  settlements: readonly SettlementRow[],
  now: Date,
): CaptureSettlement | null {
  if (alreadySettled(settlements, captureAttemptId)) return null;
  // Gross capture here; refunds settle on their own (negative) records, counted in settled_amount.
  const amount = amountToSettle(row, captureAttemptId, attempt, settlements);
  if (amount <= 0) return null;
  const settlementId = uuidv7();
  // The sandbox's issuer disputes the dispute test card once it settles.
  const scenario = definitionOf(row) === 'mock-card' ? scenarioOf(row.authorized_amount, paymentHint(row)).kind : null;
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
  const disputes = disputed ? sandboxDisputeLines(row, report, reversed) : [];
  const [chargeback, reversal] = disputes;
  const money = { amount: row.captured_amount, currency: row.currency };
  const events = [
    event(
      row,
      'payment-connector-report-transaction-settled',
      { settlement_id: settlementId, capture_id: captureAttemptId, amount, currency: row.currency },
      now,
    ),
    ...(chargeback
      ? [
          event(
            row,
            'payment-connector-report-chargeback-posted',
            { chargeback_id: chargeback.id, ...money, reason: 'fraudulent' },
            now,
          ),
        ]
      : []),
    ...(reversal
      ? [
          event(
            row,
            'payment-connector-report-chargeback-reversal-posted',
            { chargeback_reversal_id: reversal.id, ...money },
            now,
          ),
        ]
      : []),
  ];
  const record = {
    merchant_account_id: row.merchant_account_id,
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
  return { record, disputes, change: { row, patch, now, kinds }, events };
}
