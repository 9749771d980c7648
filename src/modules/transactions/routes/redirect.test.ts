import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { reconcileDueAttempts } from '../reconcile/reconcile.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function merchantWithPayByBank() {
  const m = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Bank',
      payment_service_definition_id: 'mock-paybybank',
      fields: [{ key: 'merchant_id', value: 'pbb' }],
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL', 'DE'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return m;
}

const redirectPayment = (extra: Record<string, unknown> = {}) => ({
  amount: 2500,
  currency: 'EUR',
  intent: 'capture',
  payment_method: { method: 'paybybank', country: 'NL', currency: 'EUR', redirect_url: 'https://shop.example/return' },
  ...extra,
});

async function pending(m: string) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: redirectPayment(),
  });
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn).toMatchObject({
    status: 'buyer_approval_pending',
    intent_outcome: 'pending',
    method: 'paybybank',
    instrument_type: 'redirect',
    country: 'NL',
  });
  expect(txn.payment_method.approval_url).toMatch(/\/sandbox\/approvals\//);
  expect(txn.approval_expires_at).toEqual(expect.any(String));
  return txn;
}

const pathOf = (url: string) => new URL(url).pathname;

describe('happy', () => {
  it('waits for the buyer, who approves on the page; the transaction is captured', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Approve');
    const approved = await t.app.inject({
      method: 'POST',
      url: `${pathOf(txn.payment_method.approval_url)}/approve`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.headers.refresh).toContain(
      `https://shop.example/return?transaction_id=${txn.id}&transaction_status=capture_succeeded`,
    );
    const after = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(after).toMatchObject({ status: 'capture_succeeded', intent_outcome: 'succeeded', captured_amount: 2500 });
    const again = await t.app.inject({ method: 'POST', url: `${pathOf(txn.payment_method.approval_url)}/decline` });
    expect(again.statusCode).toBe(400);
  });

  it('declines when the buyer declines', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    await t.app.inject({ method: 'POST', url: `${pathOf(txn.payment_method.approval_url)}/decline` });
    const after = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(after).toMatchObject({ status: 'authorization_declined', error_code: 'buyer_declined' });
  });

  it('times out a buyer who never comes back (reconciliation after approval_expires_at)', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    await reconcileDueAttempts(t.deps, new Date(Date.parse(txn.approval_expires_at) + 1000));
    const after = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(after).toMatchObject({
      status: 'authorization_failed',
      error_code: 'buyer_approval_timeout',
      buyer_approval_timedout_at: expect.any(String),
    });
  });

  it('can be canceled while waiting', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const res = await t.request({ method: 'POST', url: `/transactions/${txn.id}/cancel`, merchantAccountId: m });
    expect(res.json()).toMatchObject({
      type: 'transaction-cancel',
      status: 'succeeded',
      transaction: { status: 'authorization_failed', error_code: 'canceled' },
    });
  });
});

describe('errors', () => {
  it('refuses a redirect method whose currency differs from the transaction', async () => {
    const m = await merchantWithPayByBank();
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: redirectPayment({ currency: 'USD' }),
    });
    expect(res.statusCode).toBe(400);
  });

  it('answers 404 for an unknown approval page', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/sandbox/approvals/nobody/018f0000-0000-7000-8000-000000000000',
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('security', () => {
  it('the approval page and its answers may not be framed: another site cannot overlay the Approve button (clickjacking)', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    const approved = await t.app.inject({
      method: 'POST',
      url: `${pathOf(txn.payment_method.approval_url)}/approve`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    for (const res of [page, approved]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });
});
