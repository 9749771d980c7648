import { randomBytes } from 'node:crypto';

/**
 * The fake's Stripe balance, after Stripe's documented objects (https://docs.stripe.com/api/balance_transactions,
 * /api/payouts, /api/disputes; https://docs.stripe.com/reports/reporting-categories): a balance
 * transaction for each capture (a partial capture books the whole authorization and a
 * `partial_capture_reversal` of the rest, as Stripe does), each succeeded refund, each dispute
 * (a debit with the dispute fee) and each won dispute (a credit back), with Stripe's fees in
 * `fee` / `fee_details`; and automatic payouts, each paying out every transaction not paid out
 * yet in its currency, with its own `payout` balance transaction.
 */

type Obj = Record<string, unknown>;

export interface BalanceState {
  /** Balance transactions in the order they were made. */
  transactions: Obj[];
  /** Everything a balance transaction's `source` can be (charges, refunds, disputes, payouts), by id. */
  objects: Map<string, Obj>;
  disputes: Map<string, Obj>;
  payouts: Map<string, Obj>;
  seq: number;
}

export const newBalance = (): BalanceState => ({
  transactions: [],
  objects: new Map(),
  disputes: new Map(),
  payouts: new Map(),
  seq: 0,
});

/** Stripe's standard card pricing in the fake: 2.9 % + 30 (Stripe units), and a 15.00 dispute fee. */
export const processingFee = (amount: number) => Math.round((amount * 29) / 1000) + 30;
export const DISPUTE_FEE = 1500;

// The sequence first, zero-padded: objects made in one second sort in the order they were made,
// as the connector's tie-break on (created, id) then reads them (Stripe's own ids are opaque).
const idOf = (b: BalanceState, prefix: string) =>
  `${prefix}_${String(++b.seq).padStart(8, '0')}${randomBytes(8).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function post(
  b: BalanceState,
  source: Obj,
  fields: {
    type: string;
    reporting_category: string;
    amount: number;
    currency: unknown;
    fee?: number;
    feeDescription?: string;
  },
): Obj {
  const fee = fields.fee ?? 0;
  const created = now();
  b.objects.set(String(source.id), source);
  const bt: Obj = {
    id: idOf(b, 'txn'),
    object: 'balance_transaction',
    amount: fields.amount,
    available_on: created + 2 * 86400,
    balance_type: 'payments',
    created,
    currency: fields.currency,
    description: null,
    exchange_rate: null,
    fee,
    fee_details:
      fee === 0
        ? []
        : [
            {
              amount: fee,
              application: null,
              currency: fields.currency,
              description: fields.feeDescription ?? 'Stripe processing fees',
              type: 'stripe_fee',
            },
          ],
    net: fields.amount - fee,
    reporting_category: fields.reporting_category,
    source: source.id,
    status: 'pending',
    type: fields.type,
    _payout: null,
  };
  b.transactions.push(bt);
  return bt;
}

/**
 * A capture of `captured` (Stripe units) on the intent's charge. A part of a multicapture books
 * that part; a capture of less than the authorization books the authorization and reverses the
 * uncaptured rest with a Refund (`partial_capture_reversal`).
 */
export function bookCapture(b: BalanceState, intent: Obj, charge: Obj, captured: number, partOfMany: boolean): void {
  charge.amount_captured = Number(charge.amount_captured ?? 0) + captured;
  if (partOfMany || captured >= Number(intent.amount)) {
    post(b, charge, {
      type: 'charge',
      reporting_category: 'charge',
      amount: captured,
      currency: intent.currency,
      fee: processingFee(captured),
    });
    return;
  }
  post(b, charge, {
    type: 'charge',
    reporting_category: 'charge',
    amount: Number(intent.amount),
    currency: intent.currency,
    fee: processingFee(captured),
  });
  const rest: Obj = {
    id: idOf(b, 're'),
    object: 'refund',
    amount: Number(intent.amount) - captured,
    currency: intent.currency,
    charge: charge.id,
    payment_intent: intent.id,
    status: 'succeeded',
    reason: null,
    created: now(),
  };
  post(b, rest, {
    type: 'refund',
    reporting_category: 'partial_capture_reversal',
    amount: -Number(rest.amount),
    currency: intent.currency,
  });
}

/** A succeeded refund: Stripe keeps its processing fee (no fee returned). */
export function bookRefund(b: BalanceState, refund: Obj): void {
  if (refund.status === 'succeeded')
    post(b, refund, {
      type: 'refund',
      reporting_category: 'refund',
      amount: -Number(refund.amount),
      currency: refund.currency,
    });
}

/** The buyer's bank disputes a captured payment: the disputed amount and the dispute fee are taken from the balance. */
export function openDispute(b: BalanceState, intent: Obj, charge: Obj, amount: number, reason = 'fraudulent'): Obj {
  const dispute: Obj = {
    id: idOf(b, 'du'),
    object: 'dispute',
    amount,
    currency: intent.currency,
    charge: charge.id,
    payment_intent: intent.id,
    reason,
    status: 'needs_response',
    balance_transactions: [],
    created: now(),
  };
  b.disputes.set(String(dispute.id), dispute);
  const bt = post(b, dispute, {
    type: 'adjustment',
    reporting_category: 'dispute',
    amount: -amount,
    currency: intent.currency,
    fee: DISPUTE_FEE,
    feeDescription: 'Dispute fee',
  });
  (dispute.balance_transactions as Obj[]).push(bt);
  return dispute;
}

/** The dispute is closed; won, Stripe credits the disputed amount back (the dispute fee is not returned in the fake). */
export function closeDispute(b: BalanceState, id: string, status: 'won' | 'lost'): Obj {
  const dispute = b.disputes.get(id)!;
  dispute.status = status;
  if (status === 'won')
    (dispute.balance_transactions as Obj[]).push(
      post(b, dispute, {
        type: 'adjustment',
        reporting_category: 'dispute_reversal',
        amount: Number(dispute.amount),
        currency: dispute.currency,
      }),
    );
  return dispute;
}

/** An automatic payout of every balance transaction of `currency` not paid out yet; null when there is none. */
export function payOut(b: BalanceState, currency = 'usd'): Obj | null {
  const due = b.transactions.filter((t) => t._payout === null && t.currency === currency);
  if (due.length === 0) return null;
  const amount = due.reduce((sum, t) => sum + Number(t.net), 0);
  const created = now();
  const payout: Obj = {
    id: idOf(b, 'po'),
    object: 'payout',
    amount,
    currency,
    arrival_date: created + 86400,
    automatic: true,
    created,
    method: 'standard',
    status: 'paid',
    type: 'bank_account',
    balance_transaction: null,
    livemode: false,
  };
  b.payouts.set(String(payout.id), payout);
  const own = post(b, payout, { type: 'payout', reporting_category: 'payout', amount: -amount, currency });
  payout.balance_transaction = own.id;
  for (const t of [...due, own]) Object.assign(t, { _payout: payout.id, status: 'available' });
  return payout;
}

/** Stripe's list page: newest first, `starting_after` an id of the previous page, `limit` at most 100. */
function page(items: Obj[], query: URLSearchParams, url: string): Obj {
  const newestFirst = [...items].reverse();
  const after = query.get('starting_after');
  const from = after ? newestFirst.findIndex((i) => i.id === after) + 1 : 0;
  const limit = Math.min(Number(query.get('limit') ?? 10), 100);
  const data = newestFirst.slice(from, from + limit);
  return { object: 'list', data, has_more: from + limit < newestFirst.length, url };
}

const createdFrom = (query: URLSearchParams) => Number(query.get('created[gte]') ?? 0);
const expandsSource = (query: URLSearchParams) =>
  [...query.entries()].some(([k, v]) => /^expand\[\d*\]$/.test(k) && v === 'data.source');

/** `GET /v1/balance_transactions` (`payout`, `created[gte]`, paging, `expand[]=data.source`). */
export function listBalanceTransactions(b: BalanceState, query: URLSearchParams): Obj {
  const payout = query.get('payout');
  const items = b.transactions.filter(
    (t) => (!payout || t._payout === payout) && Number(t.created) >= createdFrom(query),
  );
  const listed = page(items, query, '/v1/balance_transactions');
  const expand = expandsSource(query);
  listed.data = (listed.data as Obj[]).map(({ _payout, ...t }) => {
    void _payout;
    return expand ? { ...t, source: b.objects.get(String(t.source)) ?? t.source } : t;
  });
  return listed;
}

/** `GET /v1/payouts` (`created[gte]`, `status`, paging). */
export function listPayouts(b: BalanceState, query: URLSearchParams): Obj {
  const status = query.get('status');
  return page(
    [...b.payouts.values()].filter((p) => (!status || p.status === status) && Number(p.created) >= createdFrom(query)),
    query,
    '/v1/payouts',
  );
}
