import type { SettlementFetchRequest, SettlementLine, SettlementPage } from '../connector-settlements.ts';
import { fromStripeAmount } from './stripe.amounts.ts';
import type { Stripe } from './stripe.client.ts';

/**
 * Stripe's settlement report (docs/settlements.md, "Stripe"): its automatic payouts, oldest first,
 * and for each the balance transactions it paid out (`GET /v1/balance_transactions?payout=po_…`,
 * sources expanded), so that every line carries the payout that paid it as its report id and a
 * payout's lines add up to the payout. Lines not paid out yet wait for their payout. Classified
 * by `reporting_category` (Stripe's accounting grouping):
 * - `charge` → a capture line (`partial_capture_reversal` is netted into its charge: Stripe books a
 *   partial capture as the whole authorization and a reversal of the uncaptured rest);
 * - `refund` → a refund line (the Refund's id is our refund's `payment_service_refund_id`);
 * - `dispute` → a chargeback line, `dispute_reversal` (a won dispute) → a chargeback reversal;
 * - everything else (the payout itself, fees billed on their own, transfers) is not a payment's line.
 * `fee` (the sum of `fee_details`: Stripe's fee, application fees, tax) is the commission;
 * Stripe's standard pricing breaks down no interchange, markup or scheme fee (null).
 */

/** Where the listing stands: the payout being read (or the last one finished) and the last balance transaction read of it. */
interface StripeCursor {
  payout: string;
  created: number;
  after: string | null;
  finished: boolean;
}

const PAGE = 100;

function parseCursor(cursor: string | null): StripeCursor | null {
  if (!cursor) return null;
  const parsed = JSON.parse(cursor) as Partial<StripeCursor>;
  if (typeof parsed.payout !== 'string' || typeof parsed.created !== 'number') return null;
  return {
    payout: parsed.payout,
    created: parsed.created,
    after: typeof parsed.after === 'string' ? parsed.after : null,
    finished: parsed.finished === true,
  };
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);
const later = (a: Pick<Stripe.Payout, 'created' | 'id'>, b: { created: number; id: string }) =>
  a.created > b.created || (a.created === b.created && a.id > b.id);

/** The oldest paid automatic payout after `after` (created at or after `since` when none). */
async function nextPayout(stripe: Stripe, since: Date, after: StripeCursor | null): Promise<Stripe.Payout | null> {
  const from = after ? after.created : Math.floor(since.getTime() / 1000);
  let best: Stripe.Payout | null = null;
  let startingAfter: string | undefined;
  // Stripe lists newest first; a day has a payout or a few per currency, so the whole range is read.
  for (;;) {
    const page = await stripe.payouts.list({
      created: { gte: from },
      status: 'paid',
      limit: PAGE,
      ...(startingAfter ? { starting_after: startingAfter } : {}),
    });
    for (const payout of page.data) {
      if (!payout.automatic || (after && !later(payout, { created: after.created, id: after.payout }))) continue;
      if (!best || later(best, payout)) best = payout;
    }
    if (!page.has_more || page.data.length === 0) return best;
    startingAfter = page.data[page.data.length - 1]!.id;
  }
}

type Source = Stripe.Charge | Stripe.Refund | Stripe.Dispute;
const sourceOf = (bt: Stripe.BalanceTransaction) =>
  bt.source && typeof bt.source === 'object' ? (bt.source as unknown as Source) : null;

/** Our amount (minor units of `currency`, positive) of a Stripe amount. */
const ours = (amount: number, currency: string) => Math.abs(fromStripeAmount(amount, currency));

/** Stripe's partial-capture reversals of this page, by charge: netted into their charge's line. */
function reversalsByCharge(data: Stripe.BalanceTransaction[]): Map<string, { amount: number; fee: number }> {
  const out = new Map<string, { amount: number; fee: number }>();
  for (const bt of data) {
    if (bt.reporting_category !== 'partial_capture_reversal') continue;
    const charge = idOf((sourceOf(bt) as Stripe.Refund | null)?.charge);
    if (!charge) continue;
    const seen = out.get(charge) ?? { amount: 0, fee: 0 };
    out.set(charge, { amount: seen.amount + bt.amount, fee: seen.fee + bt.fee });
  }
  return out;
}

/** A charge's captured gross (Stripe units): the authorization booked, less its reversal (in this page, or the Charge's `amount_captured` when no conversion). */
function capturedGross(
  bt: Stripe.BalanceTransaction,
  charge: Stripe.Charge,
  reversal: { amount: number; fee: number } | undefined,
): { amount: number; fee: number } {
  if (reversal) return { amount: bt.amount + reversal.amount, fee: bt.fee + reversal.fee };
  const partial =
    charge.amount_captured > 0 &&
    charge.amount_captured < charge.amount &&
    bt.amount === charge.amount &&
    bt.exchange_rate === null;
  return { amount: partial ? charge.amount_captured : bt.amount, fee: bt.fee };
}

/** One balance transaction → our line, or null when it is no payment's line. */
function lineOf(
  bt: Stripe.BalanceTransaction,
  payoutId: string,
  reversals: Map<string, { amount: number; fee: number }>,
): SettlementLine | null {
  const source = sourceOf(bt);
  const currency = bt.currency.toUpperCase();
  const base = {
    reportLineId: bt.id,
    reportId: payoutId,
    reportFileIds: [],
    merchantReference: null,
    currency,
    interchange: null,
    markup: null,
    schemeFee: null,
    exchangeRate: bt.exchange_rate,
    postedAt: new Date(bt.created * 1000),
  };
  const line = (
    kind: SettlementLine['kind'],
    paymentIntent: string | null,
    refund: string | null,
    amount: number,
    fee: number,
  ): SettlementLine | null =>
    paymentIntent
      ? {
          ...base,
          kind,
          providerTransactionId: paymentIntent,
          providerRefundId: refund,
          amount: ours(amount, currency),
          commission: fromStripeAmount(fee, currency),
        }
      : null;
  if (!source) return null;
  switch (bt.reporting_category) {
    case 'charge': {
      const charge = source as Stripe.Charge;
      const gross = capturedGross(bt, charge, reversals.get(charge.id));
      return line('capture', idOf(charge.payment_intent), null, gross.amount, gross.fee);
    }
    case 'refund': {
      const refund = source as Stripe.Refund;
      return line('refund', idOf(refund.payment_intent), refund.id, bt.amount, bt.fee);
    }
    case 'dispute':
    case 'dispute_reversal': {
      const dispute = source as Stripe.Dispute;
      return line(
        bt.reporting_category === 'dispute' ? 'chargeback' : 'chargeback-reversal',
        idOf(dispute.payment_intent),
        null,
        bt.amount,
        bt.fee,
      );
    }
    default:
      return null;
  }
}

/** One page of one payout's balance transactions as lines, and the cursor after it. */
async function payoutPage(
  stripe: Stripe,
  payout: { id: string; created: number },
  after: string | null,
): Promise<{ lines: SettlementLine[]; cursor: StripeCursor }> {
  const page = await stripe.balanceTransactions.list({
    payout: payout.id,
    limit: PAGE,
    expand: ['data.source'],
    ...(after ? { starting_after: after } : {}),
  });
  const reversals = reversalsByCharge(page.data);
  // Stripe lists newest first: the page's lines are written in the order they were posted.
  const lines = [...page.data]
    .reverse()
    .map((bt) => lineOf(bt, payout.id, reversals))
    .filter((l): l is SettlementLine => l !== null);
  const last = page.data.length > 0 ? page.data[page.data.length - 1]!.id : after;
  return {
    lines,
    cursor: {
      payout: payout.id,
      created: payout.created,
      after: page.has_more ? last : null,
      finished: !page.has_more,
    },
  };
}

/**
 * `settlements` of stripe-card: one page of one payout per call. `report` (a payout id, from the
 * `payout.paid` webhook) reads that payout only; otherwise the paid automatic payouts created at or
 * after `since`, oldest first, resuming at the cursor.
 */
export async function fetchStripeSettlements(stripe: Stripe, request: SettlementFetchRequest): Promise<SettlementPage> {
  const at = parseCursor(request.cursor);
  if (request.report) {
    if (at?.finished) return { lines: [], cursor: request.cursor, done: true };
    const payout = await stripe.payouts.retrieve(request.report);
    const page = await payoutPage(stripe, payout, at?.after ?? null);
    return { lines: page.lines, cursor: JSON.stringify(page.cursor), done: page.cursor.finished };
  }
  const current =
    at && !at.finished ? { id: at.payout, created: at.created } : await nextPayout(stripe, request.since, at);
  if (!current) return { lines: [], cursor: request.cursor, done: true };
  const page = await payoutPage(stripe, current, at && !at.finished ? at.after : null);
  return { lines: page.lines, cursor: JSON.stringify(page.cursor), done: false };
}
