import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import {
  approveAtProvider,
  createNonCardService,
  nonCardPayment,
  NON_CARD_SECRETS,
  startNonCardWorld,
  type NonCardMethod,
  type NonCardWorld,
} from '../helpers/non-card.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { drainUntil, startReceiver, verifyWebhook, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * What follows a non-card payment, through the API against the providers' local fakes: voids,
 * captures and cancels where the provider supports them, refused with the API's error body where
 * it does not (a captured-at-once iDEAL or PIX cannot be voided; a PIX or iDEAL awaiting its buyer
 * cannot be canceled, as the buyer could still pay it); asynchronous outcomes (GoCardless days
 * later, PIX when the buyer pays) landing through signed inbound webhooks or reconciliation, with
 * the transaction's events and the merchant's signed webhook deliveries.
 */
let w: NonCardWorld;
let receiver: Receiver;
beforeAll(async () => {
  [w, receiver] = await Promise.all([startNonCardWorld(), startReceiver()]);
});
afterAll(async () => {
  await receiver.close();
  await w.close();
});

const bodies: string[] = [];
async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await w.t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

async function merchantWith(method: NonCardMethod) {
  const m = await createMerchantAccount(w.t.deps);
  const service = await createNonCardService(w.t, m, method);
  return { m, service: service.id };
}

async function pay(m: string, method: NonCardMethod, body: Record<string, unknown> = {}) {
  const res = await call(m, 'POST', '/transactions', nonCardPayment(method, body));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const get = async (m: string, id: string) => (await call(m, 'GET', `/transactions/${id}`)).json();
const eventNames = async (m: string, id: string) =>
  ((await call(m, 'GET', `/transactions/${id}/events`)).json().items as Array<{ name: string }>).map((e) => e.name);

/** Posts a provider's signed delivery to the service's inbound webhook endpoint. */
const deliver = (m: string, service: string, request: { headers: unknown; rawBody: Buffer }) =>
  w.t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${service}/webhooks`,
    headers: request.headers as Record<string, string>,
    payload: request.rawBody,
  });

const refusal = (message: string) => ({ type: 'error', code: 'bad_request', status: 400, message });
const CAPTURED_NO_VOID = 'A captured transaction cannot be voided; refund it instead';
const STILL_PAYABLE = (method: string) =>
  `The buyer can still pay this ${method} at the payment service, which cannot withdraw it: wait for its outcome or its approval_expires_at, and refund it if it is paid`;

describe('voids, captures and cancels', () => {
  it('ideal: captured at the bank, so no void (refund instead) and no capture; a refund goes to Adyen', async () => {
    const { m } = await merchantWith('ideal');
    const txn = await pay(m, 'ideal');
    await approveAtProvider(w.t, 'ideal', txn.payment_method.approval_url);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded' });
    const before = w.adyen.requests.length;
    const voided = await call(m, 'POST', `/transactions/${txn.id}/void`);
    expect(voided.statusCode).toBe(400);
    expect(voided.json()).toMatchObject(refusal(CAPTURED_NO_VOID));
    const captured = await call(m, 'POST', `/transactions/${txn.id}/capture`, {});
    expect(captured.statusCode).toBe(400);
    expect(captured.json()).toMatchObject({ type: 'error', code: 'bad_request', status: 400 });
    expect(w.adyen.requests.length).toBe(before);
    const refund = await call(m, 'POST', `/transactions/${txn.id}/refunds`, { amount: 1000 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(w.adyen.bodies('/refunds').at(-1)).toMatchObject({ amount: { value: 1000, currency: 'EUR' } });
  });

  it.each([
    ['pix', 'dlocal'],
    ['ideal', 'adyen'],
  ] as const)(
    '%s: a payment awaiting its buyer is not canceled (the buyer could still pay it), and still completes',
    async (method, provider) => {
      const { m, service } = await merchantWith(method);
      const txn = await pay(m, method);
      const before = w[provider].requests.length;
      const canceled = await call(m, 'POST', `/transactions/${txn.id}/cancel`);
      expect(canceled.statusCode).toBe(400);
      expect(canceled.json()).toMatchObject(refusal(STILL_PAYABLE(method)));
      expect(w[provider].requests.length).toBe(before);
      expect(await get(m, txn.id)).toMatchObject({ status: 'buyer_approval_pending' });
      if (method === 'pix') await deliver(m, service, w.dlocal.pay(txn.payment_service_transaction_id));
      else await approveAtProvider(w.t, 'ideal', txn.payment_method.approval_url);
      expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    },
  );

  it('paypal: a payment awaiting its buyer is canceled; an approval that comes anyway captures nothing and its late authorization is voided', async () => {
    const { m } = await merchantWith('paypal');
    const txn = await pay(m, 'paypal');
    const canceled = await call(m, 'POST', `/transactions/${txn.id}/cancel`);
    expect(canceled.statusCode, canceled.body).toBe(200);
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_failed', error_code: 'canceled' });
    await approveAtProvider(w.t, 'paypal', txn.payment_method.approval_url);
    const order = w.paypal.orders.get(txn.payment_service_transaction_id)!;
    await w.t.deps.queue.drain(w.t.deps as never);
    // The return of a canceled transaction authorizes nothing: the approved order lapses at PayPal unpaid.
    expect(order).toMatchObject({ status: 'APPROVED', authorizations: [], captures: [] });
    // Reconciliation at the approval deadline finds the approved order: the late authorization it
    // makes is voided at PayPal at once (late-void.service.ts); the transaction stays canceled.
    await reconcileDueAttempts(w.t.deps, new Date(Date.now() + 2 * 86_400_000));
    await drainUntil(
      w.t.deps,
      () => order.authorizations.length > 0 && order.authorizations.every((a) => a.status === 'VOIDED'),
    );
    expect(order.authorizations).toEqual([expect.objectContaining({ status: 'VOIDED' })]);
    expect(order.captures).toEqual([]);
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_failed', error_code: 'canceled' });
  });

  it('pix and gocardless: no void once captured or collecting, with the same error body', async () => {
    const pix = await merchantWith('pix');
    const paid = await pay(pix.m, 'pix');
    await deliver(pix.m, pix.service, w.dlocal.pay(paid.payment_service_transaction_id));
    const pixVoid = await call(pix.m, 'POST', `/transactions/${paid.id}/void`);
    expect(pixVoid.statusCode).toBe(400);
    expect(pixVoid.json()).toMatchObject(refusal(CAPTURED_NO_VOID));
    const gc = await merchantWith('gocardless');
    const collecting = await pay(gc.m, 'gocardless');
    await approveAtProvider(w.t, 'gocardless', collecting.payment_method.approval_url);
    expect(await get(gc.m, collecting.id)).toMatchObject({ status: 'capture_pending' });
    const gcVoid = await call(gc.m, 'POST', `/transactions/${collecting.id}/void`);
    expect(gcVoid.statusCode).toBe(400);
    expect(gcVoid.json()).toMatchObject(refusal(CAPTURED_NO_VOID));
  });
});

describe('asynchronous outcomes', () => {
  async function subscribe(m: string) {
    const sub = await call(m, 'POST', '/webhook-subscriptions', { url: receiver.url });
    expect(sub.statusCode, sub.body).toBe(201);
    return sub.json().secret as string;
  }
  const deliveries = (m: string, id: string) =>
    receiver.received.filter((r) => r.json.merchant_account_id === m && r.json.resource.id === id);

  it("gocardless: the collection confirmed days later by GoCardless's signed webhook reaches the merchant's webhook", async () => {
    const { m, service } = await merchantWith('gocardless');
    const secret = await subscribe(m);
    const txn = await pay(m, 'gocardless');
    await approveAtProvider(w.t, 'gocardless', txn.payment_method.approval_url);
    const [payment] = w.gocardless.paymentsOf(txn.payment_service_transaction_id);
    const confirmed = await deliver(m, service, w.gocardless.advance(payment!.id, 'confirmed'));
    expect(confirmed.statusCode, confirmed.body).toBeLessThan(300);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    await drainUntil(w.t.deps, () =>
      deliveries(m, txn.id).some((r) => (r.json.payload as { status?: string }).status === 'capture_succeeded'),
    );
    const kinds = deliveries(m, txn.id).map((r) => r.json.kind);
    expect(kinds[0]).toBe('transaction.created');
    expect(kinds).toContain('transaction.captured');
    for (const r of deliveries(m, txn.id)) expect(verifyWebhook(secret, r.headers, r.body)).toBe(true);
    const names = await eventNames(m, txn.id);
    expect(names).toContain('payment-connector-transaction-webhook-processed');
  });

  it('gocardless: a confirmation whose webhook never came is found by reconciliation, and delivered', async () => {
    const { m } = await merchantWith('gocardless');
    await subscribe(m);
    const txn = await pay(m, 'gocardless');
    await approveAtProvider(w.t, 'gocardless', txn.payment_method.approval_url);
    const [payment] = w.gocardless.paymentsOf(txn.payment_service_transaction_id);
    w.gocardless.advance(payment!.id, 'confirmed');
    await reconcileDueAttempts(w.t.deps, new Date(Date.now() + 4 * 86_400_000));
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    await drainUntil(w.t.deps, () => deliveries(m, txn.id).some((r) => r.json.kind === 'transaction.captured'));
  });

  it("pix: the buyer pays the code, dLocal's signed notification captures it once, and the merchant hears of it", async () => {
    const { m, service } = await merchantWith('pix');
    const secret = await subscribe(m);
    const txn = await pay(m, 'pix');
    const notice = w.dlocal.pay(txn.payment_service_transaction_id);
    // Altered after signing: 401, nothing changes.
    const forged = await deliver(m, service, {
      ...notice,
      rawBody: Buffer.from(notice.rawBody.toString().replace('PAID', 'PAIDX')),
    });
    expect(forged.statusCode).toBe(401);
    expect(await get(m, txn.id)).toMatchObject({ status: 'buyer_approval_pending' });
    expect((await deliver(m, service, notice)).statusCode).toBeLessThan(300);
    expect((await deliver(m, service, notice)).body).toContain('"duplicate":true');
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    await drainUntil(w.t.deps, () => deliveries(m, txn.id).some((r) => r.json.kind === 'transaction.captured'));
    const captured = deliveries(m, txn.id).filter((r) => r.json.kind === 'transaction.captured');
    expect(captured).toHaveLength(1);
    expect(verifyWebhook(secret, captured[0]!.headers, captured[0]!.body)).toBe(true);
    expect(captured[0]!.json.payload).toMatchObject({ id: txn.id, status: 'capture_succeeded', method: 'pix' });
  });
});

describe('security', () => {
  it("keeps every provider's secrets out of the answers, the merchant's webhooks, the log and the tables", async () => {
    await expectNoSecrets(w.t, [...bodies, ...receiver.received.map((r) => r.body)], NON_CARD_SECRETS);
  });
});
