import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidToBase62 } from '../../src/lib/base62.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import {
  approveAtProvider,
  createNonCardService,
  nonCardPayment,
  startNonCardWorld,
  type NonCardMethod,
  type NonCardWorld,
} from '../helpers/non-card.ts';

/**
 * Failover of the non-card methods (docs/routing.md, "Failover of redirect and asynchronous
 * methods"), through the API against the providers' local fakes. Before the buyer is reached (the
 * first service rate-limited the order, the PIX or the billing request: nothing was created), the
 * next service of the same method is tried. Once the buyer was sent to an approval page or given a
 * PIX code, whatever happens next (a decline at the return, a cancel, a rejected or expired PIX, a
 * refused mandate, an approval that expires) stays at that service: never a second service, even
 * when the rule retries that decline code.
 */
let w: NonCardWorld;
beforeAll(async () => {
  w = await startNonCardWorld();
});
afterAll(async () => w.close());

const METHODS: NonCardMethod[] = ['paypal', 'ideal', 'pix', 'gocardless'];
/** Every decline code the fakes answer after the buyer was reached, retried by the rules below. */
const RETRIED = [
  'do_not_honor',
  'buyer_declined',
  'buyer_approval_timeout',
  'authorization_expired',
  'try_again_later',
  'processing_error',
];

async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return w.t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
}

/** A merchant account with two services of `method` and a rule trying A, then B. */
async function twoServices(method: NonCardMethod) {
  const m = await createMerchantAccount(w.t.deps);
  const a = await createNonCardService(w.t, m, method, { display_name: `${method} A` });
  const b = await createNonCardService(w.t, m, method, { display_name: `${method} B` });
  const res = await call(m, 'POST', '/flows/redirect-transaction/actions/route-transaction/rules', {
    conditions: [{ field: 'payment_method', operator: 'equals', value: method }],
    outcome: { payment_service_ids: [a.id, b.id], retry_on_declines: RETRIED },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { m, a: a.id, b: b.id };
}

async function pay(m: string, method: NonCardMethod, body: Record<string, unknown> = {}) {
  const res = await call(m, 'POST', '/transactions', nonCardPayment(method, body));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const get = async (m: string, id: string) => (await call(m, 'GET', `/transactions/${id}`)).json();
const actionsOf = async (m: string, id: string) =>
  (await call(m, 'GET', `/transactions/${id}/actions`)).json().items as Array<{ outcome: Record<string, any> }>;
const failovers = async (m: string, id: string) =>
  (await actionsOf(m, id)).filter((a) => a.outcome.failover).map((a) => a.outcome.failover);

async function attempts(id: string) {
  const { rows } = await sql<{
    id: string;
    payment_service_id: string;
    status: string;
    error_code: string | null;
  }>`SELECT id, payment_service_id, status, error_code FROM transaction_attempts WHERE transaction_id = ${id} AND operation = 'authorize' ORDER BY id`.execute(
    w.t.deps.db,
  );
  return rows;
}

/** How many payments the provider made for this transaction (each one a way for the buyer to pay). */
async function madeAtProvider(method: NonCardMethod, txnId: string): Promise<number> {
  const keys = (await attempts(txnId)).map((a) => a.id);
  switch (method) {
    case 'paypal':
      return keys.filter((k) => w.paypal.orderOfRequestId(k)).length;
    case 'ideal':
      return [...w.adyen.payments.values()].filter((p) => p.reference === uuidToBase62(txnId)).length;
    case 'pix':
      return keys.filter((k) => w.dlocal.paymentOfOrder(k)).length;
    case 'gocardless':
      return keys.filter((k) => w.gocardless.billingRequestOfKey(k)).length;
  }
}

/** The provider's fault on the next call that creates the payment. */
function faultNext(method: NonCardMethod, status: 429 | 500) {
  ({ paypal: w.paypal, ideal: w.adyen, pix: w.dlocal, gocardless: w.gocardless })[method].failNext(status);
}

/** The buyer pays at the service the transaction is at: approves the page, or pays the PIX (dLocal's notification). */
async function buyerPays(m: string, method: NonCardMethod, txn: Record<string, any>) {
  if (method === 'pix') {
    const notified = w.dlocal.pay(txn.payment_service_transaction_id);
    return w.t.app.inject({
      method: 'POST',
      url: `/merchant-accounts/${m}/payment-services/${txn.payment_service.id}/webhooks`,
      headers: notified.headers as Record<string, string>,
      payload: notified.rawBody,
    });
  }
  return approveAtProvider(w.t, method, txn.payment_method.approval_url);
}

const PAID: Record<NonCardMethod, string> = {
  paypal: 'authorization_succeeded',
  ideal: 'capture_succeeded',
  pix: 'capture_succeeded',
  gocardless: 'capture_pending',
};

describe('before the buyer is reached', () => {
  it.each(METHODS)(
    '%s: the first service rate-limits the payment, the next service of the method takes it',
    async (method) => {
      const { m, a, b } = await twoServices(method);
      faultNext(method, 429);
      const txn = await pay(m, method);
      expect(txn).toMatchObject({ status: 'buyer_approval_pending', payment_service: { id: b } });
      expect(await failovers(m, txn.id)).toEqual([
        expect.objectContaining({ from: a, reason: 'service_unreachable', to: b, attempt: 2 }),
      ]);
      expect((await attempts(txn.id)).map((x) => [x.payment_service_id, x.status])).toEqual([
        [a, 'failed'],
        [b, 'pending'],
      ]);
      // Only B made a payment; the buyer completes it there.
      expect(await madeAtProvider(method, txn.id)).toBe(1);
      const done = await buyerPays(m, method, txn);
      expect(done.statusCode, done.body).toBeLessThan(300);
      expect(await get(m, txn.id)).toMatchObject({ status: PAID[method], payment_service: { id: b } });
      const events = (await call(m, 'GET', `/transactions/${txn.id}/events`)).json().items as Array<{ name: string }>;
      expect(events.map((e) => e.name)).toContain('payment-connector-response-transaction-authorization-failed');
    },
  );

  it('paypal: an order whose answer is unknown (a 500 after PayPal may have acted) is not failed over; reconciliation fails it, still at A', async () => {
    const { m, a } = await twoServices('paypal');
    faultNext('paypal', 500);
    const txn = await pay(m, 'paypal');
    expect(txn).toMatchObject({ status: 'processing', payment_service: { id: a } });
    expect(await failovers(m, txn.id)).toEqual([]);
    await reconcileDueAttempts(w.t.deps, new Date(Date.now() + 3600_000));
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_failed', payment_service: { id: a } });
    expect(await attempts(txn.id)).toHaveLength(1);
  });
});

/** What ends a payment after its buyer was reached, at the service that reached them. */
const AFTER_REACHED: Array<[string, NonCardMethod, (m: string, txn: Record<string, any>) => Promise<unknown>, string]> =
  [
    [
      'paypal: the buyer approves, PayPal declines the authorization',
      'paypal',
      (_m, txn) => approveAtProvider(w.t, 'paypal', txn.payment_method.approval_url),
      'authorization_declined',
    ],
    [
      'paypal: the buyer cancels on PayPal',
      'paypal',
      (_m, txn) => approveAtProvider(w.t, 'paypal', txn.payment_method.approval_url, false),
      'authorization_declined',
    ],
    [
      'paypal: the approval expires unanswered',
      'paypal',
      () => reconcileDueAttempts(w.t.deps, new Date(Date.now() + 3 * 86_400_000)),
      'authorization_failed',
    ],
    [
      'ideal: the buyer cancels at the bank',
      'ideal',
      (_m, txn) => approveAtProvider(w.t, 'ideal', txn.payment_method.approval_url, false),
      'authorization_declined',
    ],
    [
      'pix: the code is paid and dLocal rejects it',
      'pix',
      (m, txn) => buyerPays(m, 'pix', txn),
      'authorization_declined',
    ],
    [
      'gocardless: the payer completes the page, the bank refuses the mandate',
      'gocardless',
      (_m, txn) => approveAtProvider(w.t, 'gocardless', txn.payment_method.approval_url),
      'authorization_declined',
    ],
    [
      'gocardless: the payer leaves the page',
      'gocardless',
      (_m, txn) => approveAtProvider(w.t, 'gocardless', txn.payment_method.approval_url, false),
      'authorization_declined',
    ],
  ];

describe('after the buyer was reached', () => {
  it.each(AFTER_REACHED)('%s: stays at the first service, no second try', async (_name, method, then, status) => {
    const { m, a } = await twoServices(method);
    // 2005: the fakes' decline after the buyer's step (PayPal's authorization, dLocal's payment, GoCardless's mandate).
    const txn = await pay(m, method, { amount: 2005 });
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', payment_service: { id: a } });
    await then(m, txn);
    const after = await get(m, txn.id);
    expect(after).toMatchObject({ status, payment_service: { id: a } });
    // The rule retries the code this decline carries (PIX's notification carries none): still no second try.
    if (after.error_code !== null) expect(RETRIED).toContain(after.error_code);
    expect(await failovers(m, txn.id)).toEqual([]);
    expect((await attempts(txn.id)).map((x) => x.payment_service_id)).toEqual([a]);
    expect(await madeAtProvider(method, txn.id)).toBe(1);
  });

  it('property: whatever the first service does at creation and the buyer does after, at most one service ever reaches the buyer', async () => {
    const first = fc.constantFrom('answers', 'rate_limited', 'unknown_outcome');
    const buyer = fc.constantFrom('pays', 'cancels', 'declined');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), first, buyer, async (method, creation, next) => {
        const { m, a, b } = await twoServices(method);
        if (creation !== 'answers') faultNext(method, creation === 'rate_limited' ? 429 : 500);
        const txn = await pay(m, method, next === 'declined' ? { amount: 2005 } : {});
        if (txn.status === 'buyer_approval_pending') {
          if (next === 'cancels' && method !== 'pix')
            await approveAtProvider(w.t, method, txn.payment_method.approval_url, false);
          else if (next !== 'cancels') await buyerPays(m, method, txn);
        }
        const after = await get(m, txn.id);
        const made = await madeAtProvider(method, txn.id);
        expect(made).toBeLessThanOrEqual(1);
        // The service the buyer was sent to is the one the transaction stays at.
        expect(after.payment_service.id).toBe(creation === 'rate_limited' ? b : a);
        expect((await failovers(m, txn.id)).length).toBe(creation === 'rate_limited' ? 1 : 0);
        // No failover once a payment was made for the buyer: every failover precedes the only made payment.
        const tried = await attempts(txn.id);
        expect(tried.length).toBe(creation === 'rate_limited' ? 2 : 1);
      }),
      { numRuns: 20 },
    );
  });
});
