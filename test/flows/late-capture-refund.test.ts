import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { refundLateCaptureNow } from '../../src/modules/transactions/refund/late-refund.service.ts';
import { uuidToBase62 } from '../../src/lib/base62.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import {
  ADYEN_HMAC,
  approveAtProvider,
  createNonCardService,
  nonCardPayment,
  startNonCardWorld,
  type NonCardMethod,
  type NonCardWorld,
} from '../helpers/non-card.ts';

/**
 * A sale paid at the provider after its transaction closed unpaid (its approval deadline passed):
 * a PIX paid by dLocal's notification, an iDEAL approved at the bank (Adyen's AUTHORISATION). The
 * engine refunds it in full at the provider, once: not again for a redelivered notification, nor
 * when the job runs again after dying between its call and its record. The transaction stays
 * failed; its history shows the refund.
 */
let w: NonCardWorld;
beforeAll(async () => {
  w = await startNonCardWorld();
});
afterAll(async () => w.close());

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined };
const pastDeadline = () => new Date(Date.now() + 2 * 86_400_000);

async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return w.t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
}
const get = async (m: string, id: string) => (await call(m, 'GET', `/transactions/${id}`)).json();
const eventsOf = async (m: string, id: string) =>
  (await call(m, 'GET', `/transactions/${id}/events`)).json().items as Array<{
    name: string;
    context: Record<string, unknown>;
  }>;
const attemptsOf = (id: string) =>
  w.t.deps.db
    .selectFrom('transaction_attempts')
    .select(['id', 'operation', 'status', 'error_code', 'amount', 'provider_reference', 'compensates_attempt_id'])
    .where('transaction_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

const deliver = (m: string, service: string, request: { headers: unknown; rawBody: Buffer }) =>
  w.t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${service}/webhooks`,
    headers: request.headers as Record<string, string>,
    payload: request.rawBody,
  });
const deliverAdyen = (m: string, service: string, body: object) =>
  deliver(m, service, { headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(JSON.stringify(body)) });

/**
 * A sale of `method` whose buyer did not pay before `approval_expires_at`: failed by reconciliation.
 * `subscribed`: the merchant account has a webhook subscription, so its webhook events are written.
 */
async function expiredSale(method: NonCardMethod, { subscribed = false } = {}) {
  const m = await createMerchantAccount(w.t.deps);
  if (subscribed) await subscribeToEvents(w.t, m);
  const service = (await createNonCardService(w.t, m, method)).id;
  const res = await call(m, 'POST', '/transactions', nonCardPayment(method));
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn.status).toBe('buyer_approval_pending');
  await reconcileDueAttempts(w.t.deps, pastDeadline());
  expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_failed', error_code: 'buyer_approval_timeout' });
  return { m, service, txn };
}

const pixRefundsOf = (paymentId: string) => [...w.dlocal.refunds.values()].filter((r) => r.payment_id === paymentId);

describe('happy', () => {
  it('pix: paid after its deadline, refunded in full at dLocal once; the transaction stays failed', async () => {
    const { m, service, txn } = await expiredSale('pix', { subscribed: true });
    const paymentId = txn.payment_service_transaction_id as string;
    const notice = w.dlocal.pay(paymentId);
    const res = await deliver(m, service, notice);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      { kind: 'capture_succeeded', transaction_id: txn.id, result: 'late_capture_refund_scheduled' },
    ]);
    await w.t.deps.queue.drain(w.t.deps);
    const refunds = pixRefundsOf(paymentId);
    expect(refunds).toHaveLength(1);
    // 10.00 BRL: the whole payment.
    expect(refunds[0]).toMatchObject({ payment_id: paymentId, amount: 10, currency: 'BRL', status: 'PENDING' });
    expect(refunds[0]!.notification_url).toContain(`/payment-services/${service}/webhooks`);

    const [authorization, refund] = await attemptsOf(txn.id);
    expect(authorization).toMatchObject({ operation: 'authorize', status: 'succeeded', error_code: 'late_outcome' });
    expect(refund).toMatchObject({
      operation: 'refund',
      status: 'pending',
      amount: 1000,
      compensates_attempt_id: authorization!.id,
      provider_reference: refunds[0]!.id,
    });

    // The same notification again: a duplicate, nothing more at dLocal.
    const again = await deliver(m, service, notice);
    expect(again.json()).toMatchObject({ duplicate: true });
    await w.t.deps.queue.drain(w.t.deps);
    // The job again (a worker that died after its work): the refund is recorded, nothing is sent.
    await refundLateCaptureNow(w.t.deps, m, txn.id, authorization!.id, silent);
    expect(pixRefundsOf(paymentId)).toHaveLength(1);

    // dLocal pays the refund back and says so.
    const paid = await deliver(m, service, w.dlocal.settleRefund(refunds[0]!.id));
    expect(paid.json().actions).toEqual([{ kind: 'refund_succeeded', transaction_id: txn.id, result: 'applied' }]);
    expect((await attemptsOf(txn.id))[1]).toMatchObject({ operation: 'refund', status: 'succeeded' });

    expect(await get(m, txn.id)).toMatchObject({
      status: 'authorization_failed',
      error_code: 'buyer_approval_timeout',
      captured_amount: 0,
      refunded_amount: 0,
    });
    expect((await call(m, 'GET', `/transactions/${txn.id}/refunds`)).json().items).toEqual([]);
    const events = await eventsOf(m, txn.id);
    const names = events.map((e) => e.name);
    expect(names).toContain('transaction-late-capture-refund-scheduled');
    expect(names).toContain('transaction-late-capture-refund-pending');
    expect(names).toContain('transaction-late-capture-refunded');
    expect(events.find((e) => e.name === 'transaction-late-capture-refunded')!.context).toMatchObject({
      amount: 1000,
      currency: 'BRL',
      outcome: 'succeeded',
      late_capture_attempt_id: authorization!.id,
    });
    // The merchant was told the payment failed; nothing it was told changes (decision 0053).
    const kinds = (
      await w.t.deps.db.selectFrom('events').select('kind').where('resource_id', '=', txn.id).execute()
    ).map((e) => e.kind);
    expect(kinds).toEqual(['transaction.created', 'transaction.updated']);
    expect(kinds).not.toContain('transaction.captured');
  });

  it('pix: a job that died between its call and its record sends no second refund; the notification settles it', async () => {
    const { m, service, txn } = await expiredSale('pix');
    const paymentId = txn.payment_service_transaction_id as string;
    await deliver(m, service, w.dlocal.pay(paymentId));
    await w.t.deps.queue.drain(w.t.deps);
    const [authorization, refund] = await attemptsOf(txn.id);
    expect(pixRefundsOf(paymentId)).toHaveLength(1);
    // The database as a crash after dLocal's answer and before its record leaves it.
    await w.t.deps.db
      .updateTable('transaction_attempts')
      .set({ status: 'in_flight', provider_reference: null })
      .where('id', '=', refund!.id)
      .execute();
    await refundLateCaptureNow(w.t.deps, m, txn.id, authorization!.id, silent);
    expect(pixRefundsOf(paymentId)).toHaveLength(1);
    expect((await attemptsOf(txn.id))[1]).toMatchObject({ status: 'unknown' });
    // Reconciliation cannot name the refund at dLocal (no id of ours): it stays open, unsent.
    await reconcileDueAttempts(w.t.deps, new Date(Date.now() + 3600_000));
    expect(pixRefundsOf(paymentId)).toHaveLength(1);
    expect((await attemptsOf(txn.id))[1]).toMatchObject({ status: 'unknown' });
    const settled = await deliver(m, service, w.dlocal.settleRefund(pixRefundsOf(paymentId)[0]!.id));
    expect(settled.json().actions[0]).toMatchObject({ kind: 'refund_succeeded', result: 'applied' });
    expect((await attemptsOf(txn.id))[1]).toMatchObject({ status: 'succeeded' });
    expect((await eventsOf(m, txn.id)).map((e) => e.name)).toContain('transaction-late-capture-refunded');
  });

  it("ideal: approved at the bank after its deadline (Adyen's AUTHORISATION), refunded in full at Adyen once", async () => {
    const { m, service, txn } = await expiredSale('ideal');
    const payment = [...w.adyen.payments.values()].find((p) => p.reference === uuidToBase62(txn.id))!;
    const notice = w.adyen.approveAtBank(payment.pspReference, ADYEN_HMAC);
    const res = await deliverAdyen(m, service, notice);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      { kind: 'authorization_succeeded', transaction_id: txn.id, result: 'late_capture_refund_scheduled' },
    ]);
    await w.t.deps.queue.drain(w.t.deps);
    const refundsOf = () =>
      w.adyen.requests.filter((r) => r.method === 'POST' && r.path === `/v71/payments/${payment.pspReference}/refunds`);
    expect(refundsOf()).toHaveLength(1);
    expect(JSON.parse(refundsOf()[0]!.body)).toMatchObject({ amount: { value: 1000, currency: 'EUR' } });
    expect(payment.refunded).toBe(1000);
    const [authorization, refund] = await attemptsOf(txn.id);
    expect(refundsOf()[0]!.headers['idempotency-key']).toBe(refund!.id);
    expect(refund).toMatchObject({ operation: 'refund', status: 'pending', compensates_attempt_id: authorization!.id });

    expect((await deliverAdyen(m, service, notice)).json()).toMatchObject({ duplicate: true });
    await w.t.deps.queue.drain(w.t.deps);
    await refundLateCaptureNow(w.t.deps, m, txn.id, authorization!.id, silent);
    // Reconciliation re-sends the pending refund with its key: Adyen replays its first answer.
    await reconcileDueAttempts(w.t.deps, new Date(Date.now() + 3600_000));
    expect(payment.refunded).toBe(1000);
    expect(await get(m, txn.id)).toMatchObject({
      status: 'authorization_failed',
      captured_amount: 0,
      payment_service_transaction_id: payment.pspReference,
    });
    expect((await eventsOf(m, txn.id)).map((e) => e.name)).toContain('transaction-late-capture-refund-scheduled');
  });
});

describe('found by a sync or the buyer’s return', () => {
  it('pix: paid after its deadline without a notification, found by POST /transactions/{id}/sync and refunded once', async () => {
    const { m, txn } = await expiredSale('pix');
    const paymentId = txn.payment_service_transaction_id as string;
    const sync = async () => (await call(m, 'POST', `/transactions/${txn.id}/sync`)).statusCode;
    // Not paid yet: dLocal is asked, nothing happens.
    expect(await sync()).toBe(200);
    await w.t.deps.queue.drain(w.t.deps);
    expect(pixRefundsOf(paymentId)).toHaveLength(0);
    w.dlocal.pay(paymentId);
    expect(await sync()).toBe(200);
    expect(await sync()).toBe(200);
    await w.t.deps.queue.drain(w.t.deps);
    expect(pixRefundsOf(paymentId)).toEqual([expect.objectContaining({ amount: 10, status: 'PENDING' })]);
    const scheduled = (await eventsOf(m, txn.id)).filter((e) => e.name === 'transaction-late-capture-refund-scheduled');
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]!.context).toMatchObject({ source: 'sync', amount: 1000 });
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_failed', captured_amount: 0 });
  });

  it('ideal: a buyer back from the bank after the deadline completes the payment at Adyen; it is refunded once', async () => {
    const { txn } = await expiredSale('ideal');
    const back = await approveAtProvider(w.t, 'ideal', txn.payment_method.approval_url);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.headers.refresh).toContain('transaction_status=authorization_failed');
    await w.t.deps.queue.drain(w.t.deps);
    const payment = [...w.adyen.payments.values()].find((p) => p.reference === uuidToBase62(txn.id))!;
    expect(payment).toMatchObject({ status: 'authorised', captured: 1000, refunded: 1000 });
    // The buyer reloads the return page: nothing more.
    await approveAtProvider(w.t, 'ideal', txn.payment_method.approval_url);
    await w.t.deps.queue.drain(w.t.deps);
    expect(payment.refunded).toBe(1000);
    expect(
      w.adyen.requests.filter((r) => r.method === 'POST' && r.path === `/v71/payments/${payment.pspReference}/refunds`),
    ).toHaveLength(1);
  });
});

describe('errors', () => {
  it('pix: a refund dLocal refuses is recorded as failed, for an operator to refund at dLocal', async () => {
    const { m, service, txn } = await expiredSale('pix');
    const paymentId = txn.payment_service_transaction_id as string;
    await deliver(m, service, w.dlocal.pay(paymentId));
    await w.t.deps.queue.drain(w.t.deps);
    const [refund] = pixRefundsOf(paymentId);
    const rejected = await deliver(m, service, w.dlocal.settleRefund(refund!.id, 'REJECTED'));
    expect(rejected.json().actions[0]).toMatchObject({ kind: 'refund_failed', result: 'applied' });
    expect((await attemptsOf(txn.id))[1]).toMatchObject({ operation: 'refund', status: 'failed' });
    const failed = (await eventsOf(m, txn.id)).find((e) => e.name === 'transaction-late-capture-refund-failed');
    expect(failed?.context).toMatchObject({ outcome: 'failed', amount: 1000 });
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_failed' });
  });

  it('pix: a paid notification of a payment that was captured in time refunds nothing', async () => {
    const m = await createMerchantAccount(w.t.deps);
    const service = (await createNonCardService(w.t, m, 'pix')).id;
    const txn = (await call(m, 'POST', '/transactions', nonCardPayment('pix'))).json();
    const paid = await deliver(m, service, w.dlocal.pay(txn.payment_service_transaction_id));
    expect(paid.json().actions[0]).toMatchObject({ result: 'applied' });
    await w.t.deps.queue.drain(w.t.deps);
    expect(pixRefundsOf(txn.payment_service_transaction_id)).toHaveLength(0);
  });

  it('pix: a payment dLocal rejects by notification carries do_not_honor, as by sync', async () => {
    const m = await createMerchantAccount(w.t.deps);
    const service = (await createNonCardService(w.t, m, 'pix')).id;
    const txn = (await call(m, 'POST', '/transactions', nonCardPayment('pix', { amount: 2005 }))).json();
    const res = await deliver(m, service, w.dlocal.pay(txn.payment_service_transaction_id));
    expect(res.json().actions[0]).toMatchObject({ kind: 'authorization_failed', result: 'applied' });
    expect(await get(m, txn.id)).toMatchObject({
      status: 'authorization_declined',
      error_code: 'do_not_honor',
      raw_response_code: '300',
    });
    await w.t.deps.queue.drain(w.t.deps);
    expect(pixRefundsOf(txn.payment_service_transaction_id)).toHaveLength(0);
  });
});
