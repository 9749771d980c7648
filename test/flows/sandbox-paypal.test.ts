import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * The sandbox's PayPal (`mock-paypal`, docs/sandbox.md): method `paypal` tried without a PayPal
 * account. The buyer approves or declines on the sandbox approval page; then several partial
 * captures and a partial refund, as with PayPal; payment options offer it where it can pay.
 */

let t: TestApp;
let m: string;
beforeAll(async () => {
  t = await buildTestApp();
  m = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'PayPal (sandbox)',
      payment_service_definition_id: 'mock-paypal',
      fields: [{ key: 'merchant_id', value: 'pp-sandbox' }],
      accepted_currencies: ['EUR', 'USD'],
      accepted_countries: ['DE', 'US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(async () => t.close());

const pathOf = (url: string) => new URL(url).pathname;
const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });

async function paypalPayment(amount: number) {
  const res = await call('POST', '/transactions', {
    amount,
    currency: 'EUR',
    country: 'DE',
    intent: 'authorize',
    payment_method: { method: 'paypal', country: 'DE', currency: 'EUR', redirect_url: 'https://shop.example/return' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn).toMatchObject({ status: 'buyer_approval_pending', method: 'paypal', instrument_type: 'redirect' });
  expect(txn.payment_method.approval_url).toMatch(/\/sandbox\/approvals\//);
  return txn;
}

async function buyer(txn: { payment_method: { approval_url: string } }, choice: 'approve' | 'decline') {
  const res = await t.app.inject({
    method: 'POST',
    url: `${pathOf(txn.payment_method.approval_url)}/${choice}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('the sandbox PayPal', () => {
  it('is offered by payment options for EUR in Germany', async () => {
    const res = await call('POST', '/payment-options', { amount: 1000, currency: 'EUR', country: 'DE' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.map((o: { method: string }) => o.method)).toContain('paypal');
  });

  it('authorizes once the buyer approves, then captures twice in part and refunds part of it', async () => {
    const txn = await paypalPayment(3000);
    await buyer(txn, 'approve');
    const authorized = (await call('GET', `/transactions/${txn.id}`)).json();
    expect(authorized).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 3000 });
    expect(authorized.payment_service_transaction_id).toMatch(/^mock_pp_/);
    const first = await call('POST', `/transactions/${txn.id}/capture`, { amount: 1000, final: false });
    expect(first.statusCode, first.body).toBe(200);
    const second = await call('POST', `/transactions/${txn.id}/capture`, { amount: 1500 });
    expect(second.statusCode, second.body).toBe(200);
    expect((await call('GET', `/transactions/${txn.id}`)).json()).toMatchObject({ captured_amount: 2500 });
    const refund = await call('POST', `/transactions/${txn.id}/refunds`, { amount: 500 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json().status).toBe('succeeded');
  });

  it('declines when the buyer declines, and on the decline amounts after approval', async () => {
    const declined = await paypalPayment(2000);
    await buyer(declined, 'decline');
    expect((await call('GET', `/transactions/${declined.id}`)).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'buyer_declined',
    });
    const funds = await paypalPayment(2051);
    await buyer(funds, 'approve');
    expect((await call('GET', `/transactions/${funds.id}`)).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
    });
  });
});
