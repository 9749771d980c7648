import { isCurrency } from '../../lib/currencies.ts';
import { ConnectorError, type SettlementLine } from '../connector.ts';
import { fromBraintreeAmount } from './braintree.amounts.ts';
import { dayStartOf, microsOf } from './braintree.settlement-cursor.ts';

type Money = { value: string; currencyCode: string } | null | undefined;

/** `disbursementDetails`: null until Braintree disburses, and on merchant accounts not eligible for it. */
export interface BraintreeDisbursement {
  date?: string | null;
  amount?: Money;
  exchangeRate?: string | null;
  fundsHeld?: boolean | null;
}

/** A settled transaction or refund as the settlement searches read it (braintree.settlement-queries.ts). */
export interface SettledPayment {
  id: string;
  merchantAccountId?: string | null;
  amount?: Money;
  statusHistory?: Array<{
    status: string;
    timestamp?: string | null;
    amount?: Money;
    settlementBatchId?: string | null;
  }> | null;
  disbursementDetails?: BraintreeDisbursement | null;
  refundedTransaction?: { id: string } | null;
}

export interface BraintreeDispute {
  id: string;
  type?: string | null;
  status?: string | null;
  amountDisputed?: Money;
  amountWon?: Money;
  statusHistory?: Array<{
    status: string;
    timestamp?: string | null;
    effectiveDate?: string | null;
    disbursementDate?: string | null;
  }> | null;
  transaction?: { id: string; merchantAccountId?: string | null } | null;
}

/** A window of a round, in µs: (lower, upper]. */
export interface Window {
  lower: number;
  upper: number;
}

const unreadable = (what: string) =>
  new ConnectorError('unavailable', `Braintree answered a settlement line that cannot be read (${what})`);

/** A Braintree amount in our minor units and its currency; a malformed one stops the run (never a guessed figure). */
function moneyOf(money: Money, what: string): { amount: number; currency: string } {
  const currency = money?.currencyCode ?? '';
  const amount = money && isCurrency(currency) ? fromBraintreeAmount(money.value, currency) : null;
  if (amount === null) throw unreadable(`${what}: ${JSON.stringify(money ?? null)}`);
  return { amount, currency };
}

const noFees = { commission: 0, interchange: null, markup: null, schemeFee: null } as const;

/** The report of a line: Braintree's disbursement (one per merchant account and day), else the settlement batch. */
function reportOf(
  merchantAccountId: string,
  disbursement: BraintreeDisbursement | null | undefined,
  batch: string | null | undefined,
  fallback: string,
): string {
  if (disbursement?.date) return `disbursement:${merchantAccountId}:${disbursement.date}`;
  return batch ? `settlement-batch:${batch}` : fallback;
}

/** The disbursement's rate when Braintree paid out in another currency than the payment's (it answers 1 otherwise). */
function rateOf(disbursement: BraintreeDisbursement | null | undefined, currency: string): number | null {
  const settledIn = disbursement?.amount?.currencyCode;
  if (!disbursement?.exchangeRate || !settledIn || settledIn === currency) return null;
  const rate = Number(disbursement.exchangeRate);
  return Number.isFinite(rate) && rate > 0 ? rate : null;
}

/**
 * The ledger line of a settled transaction (`capture`) or refund (`refund`), or null when its
 * SETTLED event lies outside the window (the search bounds are inclusive; the window's lower is not).
 */
export function paymentLine(
  kind: 'capture' | 'refund',
  payment: SettledPayment,
  window: Window,
): SettlementLine | null {
  const settled = (payment.statusHistory ?? []).find((event) => event.status === 'SETTLED');
  const at = settled?.timestamp ? microsOf(settled.timestamp) : null;
  if (at !== null && (at <= window.lower || at > window.upper)) return null;
  const postedAt = at !== null ? new Date(Math.floor(at / 1000)) : new Date(Math.floor(window.upper / 1000));
  // The SETTLED event's amount is what settled, in the payment's (presentment) currency.
  const { amount, currency } = moneyOf(settled?.amount ?? payment.amount, `${kind} ${payment.id}`);
  const merchantAccountId = payment.merchantAccountId ?? 'default';
  const day = postedAt.toISOString().slice(0, 10);
  const refund = kind === 'refund';
  if (refund && !payment.refundedTransaction?.id) throw unreadable(`refund ${payment.id} has no refundedTransaction`);
  return {
    kind,
    reportLineId: `${refund ? 'refund' : 'settled'}:${payment.id}`,
    reportId: reportOf(
      merchantAccountId,
      payment.disbursementDetails,
      settled?.settlementBatchId,
      `settled:${merchantAccountId}:${day}`,
    ),
    reportFileIds: [],
    providerTransactionId: refund ? payment.refundedTransaction!.id : payment.id,
    providerRefundId: refund ? payment.id : null,
    merchantReference: null,
    currency,
    amount,
    ...noFees,
    exchangeRate: rateOf(payment.disbursementDetails, currency),
    postedAt,
  };
}

type DisputeEvent = NonNullable<BraintreeDispute['statusHistory']>[number];

/** When a dispute event took effect, in µs (its effective date; its timestamp when Braintree gives no date). */
function effectiveOf(event: DisputeEvent): number | null {
  if (event.effectiveDate) return dayStartOf(event.effectiveDate);
  return event.timestamp ? microsOf(event.timestamp) : null;
}

/**
 * A dispute's ledger lines whose event took effect in the window. Braintree debits the disputed
 * amount when the dispute opens (its first status event: OPEN, or ACCEPTED / AUTO_ACCEPTED when it
 * never was open) and credits `amountWon` back when it is WON; LOST, ACCEPTED, EXPIRED, DISPUTED and
 * UNDER_REVIEW move no money. A retrieval (a request for information) moves none either.
 */
export function disputeLines(dispute: BraintreeDispute, window: Window): SettlementLine[] {
  if (dispute.type === 'RETRIEVAL' || !dispute.transaction?.id) return [];
  const events = (dispute.statusHistory ?? [])
    .map((event) => ({ event, at: effectiveOf(event) }))
    .filter((e): e is { event: DisputeEvent; at: number } => e.at !== null)
    .sort((a, b) => a.at - b.at);
  const opened = events[0];
  const won = events.find((e) => e.event.status === 'WON');
  const merchantAccountId = dispute.transaction.merchantAccountId ?? 'default';
  const lines: SettlementLine[] = [];
  const add = (
    kind: 'chargeback' | 'chargeback-reversal',
    suffix: string,
    entry: { event: DisputeEvent; at: number },
    money: Money,
  ) => {
    if (entry.at <= window.lower || entry.at > window.upper) return;
    const { amount, currency } = moneyOf(money, `dispute ${dispute.id}`);
    if (amount === 0) return;
    const recorded = entry.event.timestamp ? microsOf(entry.event.timestamp) : null;
    const postedAt = new Date(Math.floor((recorded ?? entry.at) / 1000));
    const reportId = entry.event.disbursementDate
      ? `disbursement:${merchantAccountId}:${entry.event.disbursementDate}`
      : `dispute:${dispute.id}`;
    lines.push({
      kind,
      reportLineId: `dispute:${dispute.id}:${suffix}`,
      reportId,
      reportFileIds: [],
      providerTransactionId: dispute.transaction!.id,
      providerRefundId: null,
      merchantReference: null,
      currency,
      amount,
      ...noFees,
      exchangeRate: null,
      postedAt,
    });
  };
  if (opened) add('chargeback', 'opened', opened, dispute.amountDisputed);
  if (won)
    add(
      'chargeback-reversal',
      'won',
      won,
      dispute.amountWon && Number(dispute.amountWon.value) > 0 ? dispute.amountWon : dispute.amountDisputed,
    );
  return lines;
}
