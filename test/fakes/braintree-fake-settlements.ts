import type { BraintreeFakeTx } from './braintree-fake.ts';
import type { FakeAnswer } from './fake-server.ts';

/**
 * The settlement side of the Braintree fake, from Braintree's GraphQL schema (braintree/graphql-api
 * `schema.graphql`): the nightly batch settles what was submitted for settlement (a `SettledEvent`
 * with its time, amount and `settlementBatchId`), a disbursement fills `disbursementDetails`
 * (`date`, `amount` in the settlement currency, `exchangeRate`, `fundsHeld`), and disputes carry
 * `amountDisputed` / `amountWon` and a `statusHistory` of `DisputeStatusEvent`s (`status`,
 * `timestamp`, `effectiveDate`, `disbursementDate`). It answers `search { transactions }` and
 * `search { refunds }` filtered by `statusTransition.settledAt`, and `search { disputes }` filtered
 * by `effectiveDate`, as Relay connections paged by `first` / `after`. Any other filter is refused,
 * so a reader cannot rely on one the fake would silently ignore.
 */

export interface BraintreeFakeDispute {
  id: string;
  transactionId: string;
  type: 'CHARGEBACK' | 'PRE_ARBITRATION' | 'RETRIEVAL';
  status: string;
  amountDisputed: string;
  amountWon: string | null;
  currency: string;
  history: Array<{ status: string; timestamp: string; effectiveDate: string; disbursementDate: string | null }>;
}

/** One disbursement's net, in the payments' (presentment) currency: what Braintree paid out for a merchant account on a day. */
export interface FakeDisbursementTotal {
  reportId: string;
  currency: string;
  amount: number;
}

const exponentOf = (currency: string) => (currency === 'JPY' ? 0 : currency === 'KWD' ? 3 : 2);
const minorOf = (value: string, currency: string) => Math.round(Number(value) * 10 ** exponentOf(currency));
const decimalOf = (minor: number, currency: string) =>
  (minor / 10 ** exponentOf(currency)).toFixed(exponentOf(currency));
const gqlError = (message: string): FakeAnswer => ({
  status: 200,
  json: { data: null, errors: [{ message, extensions: { errorClass: 'VALIDATION' } }] },
});

/** A timestamp with Braintree's microseconds (`2026-11-20T10:00:00.000000Z`). */
function micro(at: string): string {
  const iso = new Date(at).toISOString();
  const extra = /\.\d{3}(\d{3})/.exec(at)?.[1] ?? '000';
  return iso.replace('Z', `${extra}Z`);
}
const microsOf = (timestamp: string) =>
  Date.parse(timestamp) * 1000 + Number(/\.\d{3}(\d{3})/.exec(timestamp)?.[1] ?? '0');

export class BraintreeSettlementSimulation {
  readonly disputes = new Map<string, BraintreeFakeDispute>();
  private readonly ledger: Array<{ key: string; currency: string; amount: number }> = [];
  private sequence = 0;

  constructor(private readonly transactions: Map<string, BraintreeFakeTx>) {}

  /** The settlement batch at `at`: transactions and refunds submitted for settlement (or the ids given) are SETTLED. */
  settle(at: string, ids?: string[]): void {
    const timestamp = micro(at);
    for (const tx of this.transactions.values()) {
      if (tx.status !== 'SUBMITTED_FOR_SETTLEMENT' || (ids && !ids.includes(tx.id))) continue;
      tx.status = 'SETTLED';
      tx.history.unshift({
        status: 'SETTLED',
        timestamp,
        amount: { value: tx.amount, currencyCode: tx.currency },
        settlementBatchId: `${timestamp.slice(0, 10)}_${tx.merchantAccountId}`,
      });
    }
  }

  /** Disburses every settled, not yet disbursed payment (or the ids given) on `date`, in `currency` at `exchangeRate`, or holds them. */
  disburse(
    date: string,
    options: { ids?: string[]; currency?: string; exchangeRate?: string; fundsHeld?: boolean } = {},
  ): void {
    for (const tx of this.transactions.values()) {
      if (tx.status !== 'SETTLED' || tx.disbursement?.date || (options.ids && !options.ids.includes(tx.id))) continue;
      if (options.fundsHeld) {
        tx.disbursement = { date: null, amount: null, exchangeRate: null, fundsHeld: true };
        continue;
      }
      const currency = options.currency ?? tx.currency;
      const rate = options.exchangeRate ?? '1';
      const settled = minorOf(tx.amount, tx.currency) / 10 ** exponentOf(tx.currency);
      tx.disbursement = {
        date,
        amount: { value: (settled * Number(rate)).toFixed(exponentOf(currency)), currencyCode: currency },
        exchangeRate: rate,
        fundsHeld: false,
      };
      this.ledger.push({
        key: `${tx.merchantAccountId}:${date}`,
        currency: tx.currency,
        amount: (tx.kind === 'sale' ? 1 : -1) * minorOf(tx.amount, tx.currency),
      });
    }
  }

  /** A dispute on a sale: Braintree debits `amount` (default: the whole transaction) at once, from the disbursement of `disbursementDate`. */
  openDispute(
    transactionId: string,
    at: string,
    options: { amount?: string; type?: BraintreeFakeDispute['type']; disbursementDate?: string } = {},
  ): string {
    const tx = this.transactions.get(transactionId);
    if (!tx || tx.kind !== 'sale') throw new Error(`no sale ${transactionId}`);
    const legacyId = `dp${(++this.sequence).toString(36).padStart(6, '0')}`;
    const id = Buffer.from(`dispute_${legacyId}`).toString('base64').replace(/=+$/, '');
    const type = options.type ?? 'CHARGEBACK';
    const amount = type === 'RETRIEVAL' ? decimalOf(0, tx.currency) : (options.amount ?? tx.amount);
    const timestamp = micro(at);
    this.disputes.set(id, {
      id,
      transactionId,
      type,
      status: 'OPEN',
      amountDisputed: amount,
      amountWon: null,
      currency: tx.currency,
      history: [
        {
          status: 'OPEN',
          timestamp,
          effectiveDate: timestamp.slice(0, 10),
          disbursementDate: options.disbursementDate ?? null,
        },
      ],
    });
    if (options.disbursementDate)
      this.ledger.push({
        key: `${tx.merchantAccountId}:${options.disbursementDate}`,
        currency: tx.currency,
        amount: -minorOf(amount, tx.currency),
      });
    return id;
  }

  /** A dispute's next status; WON credits `amountWon` (default: the amount disputed) back. */
  resolveDispute(
    id: string,
    status: 'ACCEPTED' | 'DISPUTED' | 'UNDER_REVIEW' | 'EXPIRED' | 'WON' | 'LOST',
    at: string,
    options: { amountWon?: string; disbursementDate?: string } = {},
  ): void {
    const dispute = this.disputes.get(id)!;
    if (['ACCEPTED', 'AUTO_ACCEPTED', 'EXPIRED', 'WON', 'LOST'].includes(dispute.status))
      throw new Error(`dispute ${id} is ${dispute.status}`);
    const timestamp = micro(at);
    dispute.status = status;
    dispute.history.unshift({
      status,
      timestamp,
      effectiveDate: timestamp.slice(0, 10),
      disbursementDate: options.disbursementDate ?? null,
    });
    if (status !== 'WON') return;
    dispute.amountWon = options.amountWon ?? dispute.amountDisputed;
    const tx = this.transactions.get(dispute.transactionId)!;
    if (options.disbursementDate)
      this.ledger.push({
        key: `${tx.merchantAccountId}:${options.disbursementDate}`,
        currency: tx.currency,
        amount: minorOf(dispute.amountWon, tx.currency),
      });
  }

  /** What each disbursement paid out, net (sales less refunds, chargebacks and their reversals), in the payments' currency. */
  disbursed(): FakeDisbursementTotal[] {
    const totals = new Map<string, FakeDisbursementTotal>();
    for (const entry of this.ledger) {
      const reportId = `disbursement:${entry.key}`;
      const total = totals.get(reportId) ?? { reportId, currency: entry.currency, amount: 0 };
      total.amount += entry.amount;
      totals.set(reportId, total);
    }
    return [...totals.values()];
  }

  /** `SettledTransactions`, `SettledRefunds`, `DisputesByEffectiveDate`; null for another operation. */
  search(name: string, variables: Record<string, any>): FakeAnswer | null {
    const input = variables.input ?? {};
    if (name === 'SettledTransactions' || name === 'SettledRefunds') {
      const kind = name === 'SettledTransactions' ? 'sale' : 'credit';
      if (
        Object.keys(input).some((key) => key !== 'statusTransition') ||
        Object.keys(input.statusTransition ?? {}).some((key) => key !== 'settledAt')
      )
        return gqlError('This fake searches settled payments by statusTransition.settledAt only');
      const range = input.statusTransition?.settledAt ?? {};
      const inRange = (tx: BraintreeFakeTx) => {
        const settled = tx.history.find((event) => event.status === 'SETTLED')?.timestamp as string | undefined;
        if (!settled) return false;
        const at = microsOf(settled);
        return (
          (!range.greaterThanOrEqualTo || at >= microsOf(range.greaterThanOrEqualTo)) &&
          (!range.lessThanOrEqualTo || at <= microsOf(range.lessThanOrEqualTo))
        );
      };
      const found = [...this.transactions.values()].filter((tx) => tx.kind === kind && inRange(tx));
      return this.page(
        kind === 'sale' ? 'transactions' : 'refunds',
        found.map((tx) => ({ key: tx.id, node: this.paymentView(tx) })),
        variables,
      );
    }
    if (name === 'DisputesByEffectiveDate') {
      if (Object.keys(input).some((key) => key !== 'effectiveDate'))
        return gqlError('This fake searches disputes by effectiveDate only');
      const { greaterThanOrEqualTo: from = '0000-00-00', lessThanOrEqualTo: to = '9999-99-99' } =
        input.effectiveDate ?? {};
      const found = [...this.disputes.values()].filter((d) =>
        d.history.some((event) => event.effectiveDate >= from && event.effectiveDate <= to),
      );
      return this.page(
        'disputes',
        found.map((d) => ({ key: d.id, node: this.disputeView(d) })),
        variables,
      );
    }
    return null;
  }

  private paymentView(tx: BraintreeFakeTx) {
    const history = tx.history.map((event) => ({ timestamp: null, amount: null, ...event }));
    const base = {
      id: tx.id,
      orderId: tx.orderId,
      status: tx.status,
      merchantAccountId: tx.merchantAccountId,
      amount: { value: tx.amount, currencyCode: tx.currency },
      statusHistory: history,
      disbursementDetails: tx.disbursement ?? null,
    };
    return tx.kind === 'credit'
      ? { ...base, refundedTransaction: tx.refundedTransactionId ? { id: tx.refundedTransactionId } : null }
      : base;
  }

  private disputeView(d: BraintreeFakeDispute) {
    const tx = this.transactions.get(d.transactionId)!;
    const money = (value: string | null) => (value === null ? null : { value, currencyCode: d.currency });
    return {
      id: d.id,
      type: d.type,
      status: d.status,
      amountDisputed: money(d.amountDisputed),
      amountWon: money(d.amountWon),
      statusHistory: d.history,
      transaction: { id: tx.id, merchantAccountId: tx.merchantAccountId },
    };
  }

  /** A Relay connection page: `first` nodes after the opaque `after` cursor. */
  private page(
    field: string,
    items: Array<{ key: string; node: unknown }>,
    variables: Record<string, any>,
  ): FakeAnswer {
    const first = variables.first ?? 50;
    if (!Number.isInteger(first) || first < 1) return gqlError('first must be a positive integer');
    const cursorOf = (key: string) => Buffer.from(`cursor:${key}`).toString('base64');
    let start = 0;
    if (variables.after) {
      const index = items.findIndex((item) => cursorOf(item.key) === variables.after);
      if (index < 0) return gqlError('Invalid cursor');
      start = index + 1;
    }
    const slice = items.slice(start, start + first);
    const edges = slice.map((item) => ({ cursor: cursorOf(item.key), node: item.node }));
    const pageInfo = {
      hasNextPage: start + first < items.length,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    };
    return { status: 200, json: { data: { search: { [field]: { edges, pageInfo } } } } };
  }
}
