import type { Deps } from '../../context.ts';
import type { TransactionRow } from '../../db/schema-transactions.ts';
import type { Tx } from '../../db/transaction.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { scenarioOf } from '../../connectors/mock/mock-card.scenarios.ts';
import { paymentHint } from './connector-call.ts';
import { event } from './transaction-events.ts';
import { settleTransactionJob } from '../../jobs/settle-transaction.job.ts';
import * as repo from './transactions.repo.ts';
import { emitTransaction } from './webhook-events.ts';

/** Settlement of the sandbox: the payment service "reports" a capture settled after this delay. */
export function settlementDelayMs(deps: Deps): number {
  return deps.config.settlementDelaySeconds * 1000;
}

/** Enqueues the settlement of a captured transaction in the caller's transaction (it runs after commit). */
export async function scheduleSettlement(tx: Tx, deps: Deps, row: TransactionRow): Promise<void> {
  await deps.queue.enqueue(tx, settleTransactionJob, { merchant_account_id: row.merchant_account_id, transaction_id: row.id }, {
    jobKey: `settle-transaction:${row.merchant_account_id}:${row.id}`,
    runAt: new Date(Date.now() + settlementDelayMs(deps)),
  });
}

/** The sandbox provider's daily settlement report a record comes from. */
function sandboxReport(now: Date) {
  const day = now.toISOString().slice(0, 10);
  return { payment_service_report_id: `sandbox-report-${day}`, payment_service_report_file_ids: JSON.stringify([`sandbox-settlement-${day}.csv`]), posted_at: now, ingested_at: now };
}

/** Sandbox interchange-like commission: 1.5 % + 10 minor units, rounded down. */
export const commissionOf = (amount: number) => Math.floor((amount * 15) / 1000) + 10;

/**
 * Settles the captured amount of a transaction once (`settled_amount` is net of the refunds settled so far): a settlement record, the
 * transaction's `settled` fields, an event. The dispute test card then opens a chargeback.
 * Idempotent: a second run finds the settlement and changes nothing.
 */
export async function settleTransaction(deps: Deps, merchantAccountId: string, transactionId: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    if (!row || row.captured_amount === 0 || row.settled) return;
    const now = new Date();
    // Gross capture here; refunds settle on their own (negative) records, already counted below.
    const amount = row.captured_amount;
    const refundsSettled = (await repo.listSettlements(tx, merchantAccountId, row.id)).filter((r) => r.refund_id !== null).reduce((sum, r) => sum + r.amount, 0);
    const settlement = await repo.insertSettlementOnce(tx, {
      merchant_account_id: merchantAccountId, id: uuidv7(), transaction_id: row.id, refund_id: null, currency: row.currency, amount,
      commission: commissionOf(amount), interchange: null, markup: null, scheme_fee: null, exchange_rate: null,
      ...sandboxReport(now),
    });
    if (!settlement) return;
    // The sandbox's issuer disputes the dispute test card once it settles.
    const definition = (row.payment_service as { payment_service_definition_id?: string } | null)?.payment_service_definition_id;
    const scenario = definition === 'mock-card' ? scenarioOf(row.authorized_amount, paymentHint(row)).kind : null;
    const disputed = scenario === 'dispute' || scenario === 'dispute-reversed';
    const updated = await repo.updateTransaction(tx, merchantAccountId, row.id, { settled: true, settled_amount: amount + refundsSettled, settled_currency: row.currency, ...(disputed ? { disputed: true } : {}) });
    await emitTransaction(tx, deps, updated, 'transaction.settled');
    if (disputed) await emitTransaction(tx, deps, updated, 'transaction.disputed');
    if (scenario === 'dispute-reversed') await emitTransaction(tx, deps, updated, 'transaction.chargeback_reversed');
    const events = [event(row, 'payment-connector-report-transaction-settled', { settlement_id: settlement.id, amount, currency: row.currency }, now)];
    if (disputed) events.push(event(row, 'payment-connector-report-chargeback-posted', { amount: row.captured_amount, currency: row.currency, reason: 'fraudulent' }, now));
    if (scenario === 'dispute-reversed') events.push(event(row, 'payment-connector-report-chargeback-reversal-posted', { amount: row.captured_amount, currency: row.currency }, now));
    await repo.insertEvents(tx, events);
  });
}

/** Enqueues the settlement of a succeeded refund (a refund settlement) in the caller's transaction. */
export async function scheduleRefundSettlement(tx: Tx, deps: Deps, refund: { merchant_account_id: string; transaction_id: string; id: string }): Promise<void> {
  await deps.queue.enqueue(tx, settleTransactionJob, { merchant_account_id: refund.merchant_account_id, transaction_id: refund.transaction_id, refund_id: refund.id }, {
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
