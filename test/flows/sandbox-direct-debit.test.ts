import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import {
  eventsOf,
  onApprovalPage,
  sandboxMerchant,
  transactionWhen,
  type SandboxMerchant,
} from '../helpers/sandbox-methods.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * The sandbox's direct debits (`mock-gocardless`, `mock-sepa`, docs/sandbox.md "Asynchronous
 * methods") through HTTP: the mandate approved on the sandbox page (SEPA: with an IBAN), the
 * collection `capture_pending`, then the simulated provider's outcome, by amount, landing through
 * the inbound webhook path (SANDBOX_ASYNC_DELAY_SECONDS 0 here: the queue runs it at once): confirmed,
 * failed (the mandate stands) or charged back, each with its transaction events and webhooks.
 */
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({ SANDBOX_ASYNC_DELAY_SECONDS: '0', SETTLEMENT_DELAY_SECONDS: '3600' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const IBAN = 'DE89 3704 0044 0532 0130 00';
const METHODS = [
  {
    definition: 'mock-gocardless',
    method: 'gocardless',
    currency: 'GBP',
    country: 'GB',
    form: '',
    raw: 'insufficient_funds',
  },
  {
    definition: 'mock-sepa',
    method: 'sepa',
    currency: 'EUR',
    country: 'DE',
    form: `iban=${encodeURIComponent(IBAN)}`,
    raw: 'AM04',
  },
] as const;
type Method = (typeof METHODS)[number];

async function merchantFor(method: Method) {
  return sandboxMerchant(t, receiver, method.definition, [method.currency], [method.country]);
}

async function pay(merchant: SandboxMerchant, method: Method, amount: number, intent = 'capture') {
  const res = await merchant.call('POST', '/transactions', {
    amount,
    currency: method.currency,
    country: method.country,
    intent,
    payment_method: {
      method: method.method,
      country: method.country,
      currency: method.currency,
      redirect_url: 'https://shop.example/done',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn).toMatchObject({ status: 'buyer_approval_pending', method: method.method });
  expect(txn.payment_method.approval_url).toMatch(/\/sandbox\/approvals\//);
  return txn;
}

async function approve(method: Method, txn: { payment_method: { approval_url: string } }) {
  const res = await onApprovalPage(t, txn, 'approve', method.form);
  expect(res.statusCode, res.body).toBe(200);
}

describe.each(METHODS)('$definition', (method) => {
  it('is offered by payment options in its currency and country only', async () => {
    const merchant = await merchantFor(method);
    const methods = async (currency: string, country: string) =>
      (await merchant.call('POST', '/payment-options', { amount: 1000, currency, country }))
        .json()
        .items.map((o: { method: string }) => o.method);
    expect(await methods(method.currency, method.country)).toContain(method.method);
    expect(await methods('USD', 'US')).not.toContain(method.method);
  });

  it('collects after the mandate: capture_pending, then confirmed by the simulated provider; a refund', async () => {
    const merchant = await merchantFor(method);
    const txn = await pay(merchant, method, 1000);
    await approve(method, txn);
    expect((await merchant.call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({
      status: 'capture_pending',
    });
    const done = await transactionWhen(t, merchant, txn.id, (x) => x.status === 'capture_succeeded');
    expect(done).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    expect(await eventsOf(merchant, txn.id)).toContainEqual({
      name: 'payment-connector-transaction-webhook-processed',
      kind: 'capture_succeeded',
    });
    const refund = await merchant.call('POST', `/transactions/${txn.id}/refunds`, { amount: 400 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 400 });
    expect((await merchant.call('POST', `/transactions/${txn.id}/sync`)).statusCode).toBe(200);
    const refunds = (await merchant.call('GET', `/transactions/${txn.id}/refunds`)).json();
    expect(refunds.items).toEqual([expect.objectContaining({ status: 'succeeded', amount: 400 })]);
    await transactionWhen(t, merchant, txn.id, () => merchant.webhooks().some((w) => w.kind === 'refund.succeeded'));
    // As the real connector's webhook makes them: created waiting, updated, then captured (docs/webhooks.md).
    expect(merchant.webhooks().filter((w) => w.id === txn.id)).toEqual([
      { kind: 'transaction.created', id: txn.id, status: 'buyer_approval_pending' },
      { kind: 'transaction.updated', id: txn.id, status: 'capture_pending' },
      { kind: 'transaction.captured', id: txn.id, status: 'capture_succeeded' },
    ]);
  });

  it('2051: the collection fails later, the mandate stands (authorization_succeeded), and collects again', async () => {
    const merchant = await merchantFor(method);
    const txn = await pay(merchant, method, 2051);
    await approve(method, txn);
    const failed = await transactionWhen(t, merchant, txn.id, (x) => x.status !== 'capture_pending');
    expect(failed).toMatchObject({ status: 'authorization_succeeded', captured_amount: 0 });
    const history = await eventsOf(merchant, txn.id);
    expect(history).toContainEqual({ name: 'payment-connector-transaction-webhook-processed', kind: 'capture_failed' });
  });

  it('2259: collected, then charged back by the payer (disputed, transaction.disputed)', async () => {
    const merchant = await merchantFor(method);
    const txn = await pay(merchant, method, 2259);
    await approve(method, txn);
    const disputed = await transactionWhen(t, merchant, txn.id, (x) => x.disputed === true);
    expect(disputed).toMatchObject({ status: 'capture_succeeded', disputed: true });
    await transactionWhen(t, merchant, txn.id, () =>
      merchant.webhooks().some((w) => w.kind === 'transaction.disputed' && w.id === txn.id),
    );
    expect(merchant.webhooks().map((w) => w.kind)).toContain('transaction.disputed');
  });

  it('intent authorize: the mandate authorizes; a capture is pending, then collected; another is voided', async () => {
    const merchant = await merchantFor(method);
    const txn = await pay(merchant, method, 1500, 'authorize');
    await approve(method, txn);
    expect((await merchant.call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({
      status: 'authorization_succeeded',
    });
    const capture = await merchant.call('POST', `/transactions/${txn.id}/capture`, { amount: 600 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect((await merchant.call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({ status: 'capture_pending' });
    const done = await transactionWhen(t, merchant, txn.id, (x) => x.status === 'capture_succeeded');
    expect(done).toMatchObject({ captured_amount: 600 });

    const other = await pay(merchant, method, 1500, 'authorize');
    await approve(method, other);
    const voided = await merchant.call('POST', `/transactions/${other.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    expect((await merchant.call('GET', `/transactions/${other.id}`)).json()).toMatchObject({
      status: 'authorization_voided',
    });
  });
});

describe('errors', () => {
  it.each(METHODS)('$definition: declined by the buyer, or by the bank (2005) when approved', async (method) => {
    const merchant = await merchantFor(method);
    const left = await pay(merchant, method, 1000);
    expect((await onApprovalPage(t, left, 'decline')).statusCode).toBe(200);
    expect((await merchant.call('GET', `/transactions/${left.id}`)).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'buyer_declined',
    });
    const refused = await pay(merchant, method, 2005);
    await approve(method, refused);
    expect((await merchant.call('GET', `/transactions/${refused.id}`)).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'do_not_honor',
    });
  });

  it('mock-sepa: the mandate page asks for an IBAN and refuses an invalid one (400, nothing changes)', async () => {
    const sepa = METHODS[1];
    const merchant = await merchantFor(sepa);
    const txn = await pay(merchant, sepa, 1000);
    const page = await t.app.inject({ method: 'GET', url: new URL(txn.payment_method.approval_url).pathname });
    expect(page.body).toContain('name="iban"');
    for (const form of ['', 'iban=DE88370400440532013000']) {
      const res = await onApprovalPage(t, txn, 'approve', form);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('IBAN');
    }
    expect((await merchant.call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({
      status: 'buyer_approval_pending',
    });
  });
});
