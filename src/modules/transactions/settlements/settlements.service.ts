import type { Deps } from '../../../context.ts';
import type { SettlementRow, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor, Tx } from '../../../db/transaction.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { scenarioOf } from '../../../connectors/mock/mock-card.scenarios.ts';
import { paymentHint } from '../connector-call.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { emitTransaction } from '../webhook-events.ts';

/** Settlement of the sandbox: the payment service "reports" a capture settled after this delay. */
export function settlementDelayMs(deps: Deps): number {
  return deps.config.settlementDelaySeconds * 1000;
}

/**
 * Enqueues a settlement in the caller's transaction (it runs after commit): of one capture (its
 * attempt: a capture, or an authorization that captured), or, without one, of the captured amount
 * not settled yet (an authorize-and-capture transaction).
 */
export async function scheduleSettlement(tx: Tx, deps: Deps, row: TransactionRow, captureAttemptId?: string): Promise<void> {
  await settlementQuery(tx, deps, row, captureAttemptId).execute();
  deps.queue.pokeSoon();
}

/** `scheduleSettlement`'s insert, for a caller that runs it with its other writes (src/db/write-batch.ts); poke the queue after. */
export function settlementQuery(db: Executor, deps: Deps, row: TransactionRow, captureAttemptId?: string) {
  return deps.queue.enqueueQuery(db, 'settle-transaction', { merchant_account_id: row.merchant_account_id, transaction_id: row.id, ...(captureAttemptId ? { capture_id: captureAttemptId } : {}) }, {
    jobKey: captureAttemptId ? `settle-capture:${row.merchant_account_id}:${captureAttemptId}` : `settle-transaction:${row.merchant_account_id}:${row.id}`,
    runAt: new Date(Date.now() + settlementDelayMs(deps)),
  });
}

/**
 * Pure: how much a capture settlement records. A capture settles its own amount (an authorization
 * that captured: the authorized amount); without a capture, what is captured and not settled yet.
 * Never more than that rest, so captures settled add up to at most the captured amount.
 */
export function captureSettlementAmount(row: Pick<TransactionRow, 'captured_amount' | 'authorized_amount'>, capture: { operation: string; amount: number } | null, captureSettled: number): number {
  const rest = Math.max(row.captured_amount - captureSettled, 0);
  if (!capture) return rest;
  return Math.min(capture.operation === 'capture' ? capture.amount : row.authorized_amount, rest);
}

/** The settlement amount of one capture; 0 when there is nothing (left) to settle. */
async function amountToSettle(tx: Tx, row: TransactionRow, captureAttemptId: string | null, settlements: SettlementRow[]): Promise<number> {
  const captureSettled = settlements.filter((r) => r.refund_id === null).reduce((sum, r) => sum + r.amount, 0);
  if (!captureAttemptId) return captureSettlementAmount(row, null, captureSettled);
  const attempt = await repo.findAttempt(tx, row.merchant_account_id, captureAttemptId);
  // A capture, or the authorization of an authorize-and-capture transaction.
  const captures = attempt?.operation === 'capture' || (attempt?.operation === 'authorize' && row.intent === 'capture');
  if (!attempt || attempt.transaction_id !== row.id || attempt.status !== 'succeeded' || !captures) return 0;
  return captureSettlementAmount(row, attempt, captureSettled);
}

/** The sandbox provider's daily settlement report a record comes from. */
function sandboxReport(now: Date) {
  const day = now.toISOString().slice(0, 10);
  return { payment_service_report_id: `sandbox-report-${day}`, payment_service_report_file_ids: JSON.stringify([`sandbox-settlement-${day}.csv`]), posted_at: now, ingested_at: now };
}

/** Sandbox interchange-like commission: 1.5 % + 10 minor units, rounded down. */
export const commissionOf = (amount: number) => Math.floor((amount * 15) / 1000) + 10;

/**
 * Settles one capture (or, without `captureAttemptId`, the captured amount not settled yet) once:
 * a settlement record, the transaction's `settled` fields (`settled_amount` is every settlement so
 * far, captures net of refunds), an event. The first settlement of the dispute test card opens a
 * chargeback. Idempotent: a second run finds the settlement and changes nothing.
 */
export async function settleTransaction(deps: Deps, merchantAccountId: string, transactionId: string, captureAttemptId: string | null = null): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    if (!row || row.captured_amount === 0) return;
    const now = new Date();
    const settlements = await repo.listSettlements(tx, merchantAccountId, row.id);
    // Gross capture here; refunds settle on their own (negative) records, counted in settled_amount.
    const amount = await amountToSettle(tx, row, captureAttemptId, settlements);
    if (amount <= 0) return;
    const settlement = await repo.insertSettlementOnce(tx, {
      merchant_account_id: merchantAccountId, id: uuidv7(), transaction_id: row.id, refund_id: null, capture_attempt_id: captureAttemptId, currency: row.currency, amount,
      commission: commissionOf(amount), interchange: null, markup: null, scheme_fee: null, exchange_rate: null,
      ...sandboxReport(now),
    });
    if (!settlement) return;
    // The sandbox's issuer disputes the dispute test card once it settles.
    const definition = (row.payment_service as { payment_service_definition_id?: string } | null)?.payment_service_definition_id;
    const scenario = definition === 'mock-card' ? scenarioOf(row.authorized_amount, paymentHint(row)).kind : null;
    const disputed = !row.settled && (scenario === 'dispute' || scenario === 'dispute-reversed');
    const net = settlements.reduce((sum, r) => sum + r.amount, amount);
    const updated = await repo.updateTransaction(tx, merchantAccountId, row.id, { settled: true, settled_amount: net, settled_currency: row.currency, ...(disputed ? { disputed: true } : {}) });
    await emitTransaction(tx, deps, updated, 'transaction.settled');
    if (disputed) await emitTransaction(tx, deps, updated, 'transaction.disputed');
    if (disputed && scenario === 'dispute-reversed') await emitTransaction(tx, deps, updated, 'transaction.chargeback_reversed');
    const events = [event(row, 'payment-connector-report-transaction-settled', { settlement_id: settlement.id, capture_id: captureAttemptId, amount, currency: row.currency }, now)];
    if (disputed) events.push(event(row, 'payment-connector-report-chargeback-posted', { amount: row.captured_amount, currency: row.currency, reason: 'fraudulent' }, now));
    if (disputed && scenario === 'dispute-reversed') events.push(event(row, 'payment-connector-report-chargeback-reversal-posted', { amount: row.captured_amount, currency: row.currency }, now));
    await repo.insertEvents(tx, events);
  });
}

/** Enqueues the settlement of a succeeded refund (a refund settlement) in the caller's transaction. */
export async function scheduleRefundSettlement(tx: Tx, deps: Deps, refund: { merchant_account_id: string; transaction_id: string; id: string }): Promise<void> {
  await refundSettlementQuery(tx, deps, refund).execute();
  deps.queue.pokeSoon();
}

/** `scheduleRefundSettlement`'s insert, for a caller that runs it with its other writes (src/db/write-batch.ts). */
export function refundSettlementQuery(db: Executor, deps: Deps, refund: { merchant_account_id: string; transaction_id: string; id: string }) {
  return deps.queue.enqueueQuery(db, 'settle-transaction', { merchant_account_id: refund.merchant_account_id, transaction_id: refund.transaction_id, refund_id: refund.id }, {
    jobKey: `settle-refund:${refund.merchant_account_id}:${refund.id}`,
    runAt: new Date(Date.now() + settlementDelayMs(deps)),
  });
}

/**
 * A refund settlement: a settlement record of the refund (negative amount, no commission) once,
 * and, when the transaction has settled already, its net `settled_amount` goes down by the refund.
 */
export async function settleRefund(deps: Deps, merchantAccountId: string, transactionId: string, refundId: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    const refund = await repo.findRefund(tx, merchantAccountId, refundId, transactionId);
    if (!row || !refund || refund.status !== 'succeeded' || refund.target_type !== 'payment-method') return;
    const now = new Date();
    const settlement = await repo.insertSettlementOnce(tx, {
      merchant_account_id: merchantAccountId, id: uuidv7(), transaction_id: row.id, refund_id: refund.id, currency: refund.currency, amount: -refund.amount,
      commission: 0, interchange: null, markup: null, scheme_fee: null, exchange_rate: null,
      ...sandboxReport(now),
    });
    if (!settlement) return;
    if (row.settled) await emitTransaction(tx, deps, await repo.updateTransaction(tx, merchantAccountId, row.id, { settled_amount: row.settled_amount - refund.amount }), 'transaction.settled');
    await repo.insertEvents(tx, [event(row, 'payment-connector-report-transaction-settled', { settlement_id: settlement.id, refund_id: refund.id, amount: -refund.amount, currency: refund.currency }, now)]);
  });
}
