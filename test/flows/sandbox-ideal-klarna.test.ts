import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { onApprovalPage, sandboxMerchant, transactionWhen, type SandboxMerchant } from '../helpers/sandbox-methods.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * The sandbox's iDEAL (`mock-ideal`, as adyen-ideal: captured when the buyer approves, refunds, no
 * void) and Klarna (`mock-klarna`: authorize, several partial captures, void, refunds) through
 * HTTP, with the buyer on the sandbox approval page and the card table's decline amounts.
 */
let t: TestApp;
let receiver: Receiver;
let ideal: SandboxMerchant;
let klarna: SandboxMerchant;
beforeAll(async () => {
  t = await buildTestApp();
  receiver = await startReceiver();
  ideal = await sandboxMerchant(t, receiver, 'mock-ideal', ['EUR'], ['NL']);
  klarna = await sandboxMerchant(t, receiver, 'mock-klarna', ['EUR', 'SEK'], ['DE', 'SE']);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function pay(merchant: SandboxMerchant, method: string, amount: number, intent: string, country: string) {
  const res = await merchant.call('POST', '/transactions', {
    amount,
    currency: 'EUR',
    country,
    intent,
    payment_method: { method, country, currency: 'EUR', redirect_url: 'https://shop.example/done' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn).toMatchObject({ status: 'buyer_approval_pending', method });
  return txn;
}

const get = async (merchant: SandboxMerchant, id: string) => (await merchant.call('GET', `/transactions/${id}`)).json();

describe('mock-ideal', () => {
  it('is offered in EUR in the Netherlands only', async () => {
    const methods = async (currency: string, country: string) =>
      (await ideal.call('POST', '/payment-options', { amount: 1000, currency, country }))
        .json()
        .items.map((o: { method: string }) => o.method);
    expect(await methods('EUR', 'NL')).toContain('ideal');
    expect(await methods('EUR', 'DE')).not.toContain('ideal');
  });

  it('is captured when the buyer approves, refunded in part, and cannot be voided', async () => {
    const txn = await pay(ideal, 'ideal', 2500, 'capture', 'NL');
    expect((await onApprovalPage(t, txn, 'approve')).statusCode).toBe(200);
    expect(await get(ideal, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 2500 });
    const refund = await ideal.call('POST', `/transactions/${txn.id}/refunds`, { amount: 500 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 500 });
    expect((await ideal.call('POST', `/transactions/${txn.id}/void`)).statusCode).toBe(400);
    await transactionWhen(t, ideal, txn.id, () => ideal.webhooks().some((w) => w.kind === 'refund.succeeded'));
    expect(ideal.webhooks().filter((w) => w.id === txn.id)).toEqual([
      { kind: 'transaction.created', id: txn.id, status: 'buyer_approval_pending' },
      { kind: 'transaction.captured', id: txn.id, status: 'capture_succeeded' },
    ]);
  });

  it('declines when the buyer declines, and on the decline amounts once approved', async () => {
    const left = await pay(ideal, 'ideal', 1000, 'capture', 'NL');
    await onApprovalPage(t, left, 'decline');
    expect(await get(ideal, left.id)).toMatchObject({ status: 'authorization_declined', error_code: 'buyer_declined' });
    const funds = await pay(ideal, 'ideal', 2051, 'capture', 'NL');
    await onApprovalPage(t, funds, 'approve');
    expect(await get(ideal, funds.id)).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
    });
  });
});

describe('mock-klarna', () => {
  it('is offered where Klarna takes the currency and country', async () => {
    const methods = async (currency: string, country: string) =>
      (await klarna.call('POST', '/payment-options', { amount: 1000, currency, country }))
        .json()
        .items.map((o: { method: string }) => o.method);
    expect(await methods('EUR', 'DE')).toContain('klarna');
    expect(await methods('BRL', 'BR')).not.toContain('klarna');
  });

  it('authorizes once approved, captures twice in part, refunds part; voids another', async () => {
    const txn = await pay(klarna, 'klarna', 3000, 'authorize', 'DE');
    await onApprovalPage(t, txn, 'approve');
    expect(await get(klarna, txn.id)).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 3000 });
    const first = await klarna.call('POST', `/transactions/${txn.id}/capture`, { amount: 1000, final: false });
    expect(first.statusCode, first.body).toBe(200);
    const second = await klarna.call('POST', `/transactions/${txn.id}/capture`, { amount: 1500 });
    expect(second.statusCode, second.body).toBe(200);
    expect(await get(klarna, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 2500 });
    const refund = await klarna.call('POST', `/transactions/${txn.id}/refunds`, { amount: 700 });
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 700 });

    const other = await pay(klarna, 'klarna', 1200, 'authorize', 'DE');
    await onApprovalPage(t, other, 'approve');
    expect((await klarna.call('POST', `/transactions/${other.id}/void`)).statusCode).toBe(200);
    expect(await get(klarna, other.id)).toMatchObject({ status: 'authorization_voided' });
  });

  it('declines on the decline amounts once approved (2005)', async () => {
    const txn = await pay(klarna, 'klarna', 2005, 'authorize', 'DE');
    await onApprovalPage(t, txn, 'approve');
    expect(await get(klarna, txn.id)).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
  });
});
