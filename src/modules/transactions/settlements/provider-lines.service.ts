import type { SettlementLine } from '../../../connectors/connector-settlements.ts';
import type { Deps } from '../../../context.ts';
import type { ChargebackRow, RefundRow, SettlementRow, TransactionRow } from '../../../db/schema-transactions.ts';
import type { WebhookSubscriptionRow } from '../../../db/schema-webhooks.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { hasReportLine, insertChargebacksQuery } from '../chargebacks/chargebacks.repo.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';
import { settlementRecordQuery, writeReportLines } from './settlement-writes.ts';

/**
 * One line of a provider's settlement report, written once (docs/settlements.md): a capture line
 * becomes a settlement record (positive amount), a refund line a refund settlement of our refund
 * (negative amount, the refund `settled`), a chargeback or its reversal a line of `chargebacks`
 * (the transaction `disputed`). The transaction is found by the payment service and the provider's
 * payment id; its row lock is taken first, as every settlement of it takes it, and the line's id
 * (`report_line_id`, unique per payment service) read under it: a line seen before is a duplicate.
 */

/** What became of one line: written, seen before, or matching nothing of ours (not written). */
export type LineResult = 'written' | 'duplicate' | 'unmatched';

/** The payment service whose report is ingested, and when. */
export interface LineScope {
  merchantAccountId: string;
  paymentServiceId: string;
  ingestedAt: Date;
}

/** The report columns every line record carries. */
function reportOf(line: SettlementLine, scope: LineScope) {
  return {
    merchant_account_id: scope.merchantAccountId,
    currency: line.currency.toUpperCase(),
    exchange_rate: line.exchangeRate,
    commission: line.commission,
    interchange: line.interchange,
    markup: line.markup,
    scheme_fee: line.schemeFee,
    payment_service_report_id: line.reportId,
    payment_service_report_file_ids: JSON.stringify(line.reportFileIds),
    posted_at: line.postedAt,
    ingested_at: scope.ingestedAt,
  };
}

const seen = (settlements: SettlementRow[], scope: LineScope, line: SettlementLine) =>
  settlements.some((s) => s.report_line_id === line.reportLineId && s.payment_service_id === scope.paymentServiceId);

/**
 * Our refund a refund line settles: the one with the provider's refund id, or, when the report
 * names none (or our refund never learnt it), the transaction's only succeeded refund to the
 * payment method not settled yet.
 */
async function refundOf(tx: Tx, row: TransactionRow, line: SettlementLine): Promise<RefundRow | null> {
  const named = line.providerRefundId
    ? await repo.findRefundByProviderId(tx, row.merchant_account_id, row.id, line.providerRefundId)
    : undefined;
  if (named) return named;
  // A line naming a refund we know by another id is not that refund.
  const open = (await repo.listRefunds(tx, row.merchant_account_id, row.id)).filter(
    (r) =>
      r.status === 'succeeded' &&
      r.target_type === 'payment-method' &&
      !r.settled &&
      (!line.providerRefundId || r.payment_service_refund_id === null),
  );
  return open.length === 1 ? open[0]! : null;
}

async function captureLine(
  tx: Tx,
  deps: Deps,
  subscriptions: readonly WebhookSubscriptionRow[],
  row: TransactionRow,
  line: SettlementLine,
  scope: LineScope,
): Promise<LineResult> {
  const settlements = await repo.listSettlements(tx, row.merchant_account_id, row.id);
  if (seen(settlements, scope, line)) return 'duplicate';
  const id = uuidv7();
  const record = {
    ...reportOf(line, scope),
    id,
    transaction_id: row.id,
    refund_id: null,
    capture_attempt_id: null,
    payment_service_id: scope.paymentServiceId,
    report_line_id: line.reportLineId,
    amount: line.amount,
  };
  // settled_amount: every settlement so far, captures net of refunds (as the sandbox keeps it).
  const net = settlements.reduce((sum, s) => sum + s.amount, line.amount);
  const patch = { settled: true, settled_amount: net, settled_currency: record.currency };
  const events = [
    event(
      row,
      'payment-connector-report-transaction-settled',
      {
        settlement_id: id,
        amount: line.amount,
        currency: record.currency,
        payment_service_report_id: line.reportId,
        report_line_id: line.reportLineId,
      },
      scope.ingestedAt,
    ),
  ];
  await writeReportLines(
    tx,
    deps,
    subscriptions,
    [settlementRecordQuery(tx, record)],
    { row, patch, now: scope.ingestedAt, kinds: ['transaction.settled'] },
    events,
  );
  return 'written';
}

async function refundLine(
  tx: Tx,
  deps: Deps,
  subscriptions: readonly WebhookSubscriptionRow[],
  row: TransactionRow,
  line: SettlementLine,
  scope: LineScope,
): Promise<LineResult> {
  const settlements = await repo.listSettlements(tx, row.merchant_account_id, row.id);
  if (seen(settlements, scope, line)) return 'duplicate';
  const refund = await refundOf(tx, row, line);
  if (!refund) return 'unmatched';
  const id = uuidv7();
  const record = {
    ...reportOf(line, scope),
    id,
    transaction_id: row.id,
    refund_id: refund.id,
    capture_attempt_id: null,
    payment_service_id: scope.paymentServiceId,
    report_line_id: line.reportLineId,
    amount: -line.amount,
  };
  // A transaction not settled yet counts the refund when its capture settles (captureLine's sum).
  const change = row.settled
    ? {
        row,
        patch: { settled_amount: row.settled_amount - line.amount },
        now: scope.ingestedAt,
        kinds: ['transaction.settled' as const],
      }
    : null;
  const events = [
    event(
      row,
      'payment-connector-report-transaction-settled',
      {
        settlement_id: id,
        refund_id: refund.id,
        amount: -line.amount,
        currency: record.currency,
        payment_service_report_id: line.reportId,
        report_line_id: line.reportLineId,
      },
      scope.ingestedAt,
    ),
  ];
  await writeReportLines(
    tx,
    deps,
    subscriptions,
    [
      settlementRecordQuery(tx, record),
      repo.markRefundSettledQuery(tx, row.merchant_account_id, refund.id, scope.ingestedAt),
    ],
    change,
    events,
  );
  return 'written';
}

/**
 * A chargeback marks the transaction disputed (`transaction.disputed` when that is news: the
 * provider's dispute notification may have told it first); a reversal is a ledger line and a
 * history event (the provider's notification of the won dispute sends `transaction.chargeback_reversed`).
 */
async function disputeLine(
  tx: Tx,
  deps: Deps,
  subscriptions: readonly WebhookSubscriptionRow[],
  row: TransactionRow,
  line: SettlementLine,
  scope: LineScope,
): Promise<LineResult> {
  if (await hasReportLine(tx, row.merchant_account_id, scope.paymentServiceId, line.reportLineId)) return 'duplicate';
  const kind = line.kind as ChargebackRow['kind'];
  const id = uuidv7();
  const insert = insertChargebacksQuery(tx, [
    {
      ...reportOf(line, scope),
      id,
      transaction_id: row.id,
      kind,
      payment_service_id: scope.paymentServiceId,
      report_line_id: line.reportLineId,
      amount: line.amount,
    },
  ]);
  const posted = {
    amount: line.amount,
    currency: line.currency.toUpperCase(),
    payment_service_report_id: line.reportId,
    report_line_id: line.reportLineId,
  };
  const events = [
    kind === 'chargeback'
      ? event(row, 'payment-connector-report-chargeback-posted', { chargeback_id: id, ...posted }, scope.ingestedAt)
      : event(
          row,
          'payment-connector-report-chargeback-reversal-posted',
          { chargeback_reversal_id: id, ...posted },
          scope.ingestedAt,
        ),
  ];
  const change =
    kind === 'chargeback' && !row.disputed
      ? { row, patch: { disputed: true }, now: scope.ingestedAt, kinds: ['transaction.disputed' as const] }
      : null;
  await writeReportLines(tx, deps, subscriptions, [insert], change, events);
  return 'written';
}

/**
 * Writes one provider line in its own database transaction. `subscriptions`: the merchant's
 * webhook subscriptions, read before (settlement-writes.ts says why).
 */
export async function recordProviderLine(
  deps: Deps,
  subscriptions: readonly WebhookSubscriptionRow[],
  scope: LineScope,
  line: SettlementLine,
): Promise<LineResult> {
  const found = line.providerTransactionId
    ? await repo.findTransactionByProviderId(
        deps.db,
        scope.merchantAccountId,
        scope.paymentServiceId,
        line.providerTransactionId,
      )
    : undefined;
  if (!found) return 'unmatched';
  return withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, scope.merchantAccountId, found.id, { forUpdate: true });
    if (!row) return 'unmatched';
    if (line.kind === 'capture') return captureLine(tx, deps, subscriptions, row, line, scope);
    if (line.kind === 'refund') return refundLine(tx, deps, subscriptions, row, line, scope);
    return disputeLine(tx, deps, subscriptions, row, line, scope);
  });
}
