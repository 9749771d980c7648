import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('happy', () => {
  it('authorizes a card, captures it and refunds part of it', async () => {
    const { merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { external_identifier: 'order-1', metadata: { a: 'b' } });
    expect(txn).toMatchObject({
      type: 'transaction',
      status: 'authorization_succeeded',
      intent: 'authorize',
      intent_outcome: 'succeeded',
      amount: 1000,
      authorized_amount: 1000,
      captured_amount: 0,
      refunded_amount: 0,
      method: 'card',
      instrument_type: 'pan',
      cvv_response_code: 'match',
      anti_fraud_decision: 'accept',
    });
    expect(txn.payment_service).toMatchObject({ id: paymentServiceId, payment_service_definition_id: 'mock-card' });
    expect(txn.payment_method).toMatchObject({
      method: 'card',
      scheme: 'visa',
      label: '1111',
      details: { bin: '41111111' },
    });
    const capture = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: { amount: 600 },
    });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(capture.json()).toMatchObject({
      type: 'transaction-capture',
      status: 'succeeded',
      code: null,
      transaction: { status: 'capture_succeeded', captured_amount: 600 },
    });
    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 200 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({
      type: 'refund',
      status: 'succeeded',
      amount: 200,
      currency: 'USD',
      transaction_id: txn.id,
      target_type: 'payment-method',
    });
    const after = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(after).toMatchObject({ captured_amount: 600, refunded_amount: 200 });
    const tooMuch = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 401 },
    });
    expect(tooMuch.statusCode).toBe(400);
    const events = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/events`, merchantAccountId: m })
    ).json();
    expect(events.items.length).toBeGreaterThan(2);
    const actions = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/actions`, merchantAccountId: m })
    ).json();
    expect(actions.items[0]).toMatchObject({
      type: 'action',
      id: 'route-transaction',
      outcome: { selected: paymentServiceId },
    });
  });

  it('declines with the test card', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card('4000000000009995') });
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      intent_outcome: 'failed',
      error_code: 'insufficient_funds',
      raw_response_code: '51',
    });
  });

  it('leaves a timeout processing and sync settles it', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card('4000000000000408') });
    expect(txn.status).toBe('processing');
    const synced = await t.request({ method: 'POST', url: `/transactions/${txn.id}/sync`, merchantAccountId: m });
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 1000 });
  });

  it('voids an authorization', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/void`,
      merchantAccountId: m,
      headers: { prefer: 'resource=transaction' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ type: 'transaction', status: 'authorization_voided' });
    const capture = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
    expect(capture.statusCode).toBe(400);
  });
});

describe('store', () => {
  it('vaults the card of an accepted payment with store: true, and pays with it later', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const first = await authorized(t, m, { store: true, payment_source: 'recurring' });
    expect(first.payment_method.id).toEqual(expect.any(String));
    const stored = await t.request({
      method: 'GET',
      url: `/payment-methods/${first.payment_method.id}`,
      merchantAccountId: m,
    });
    expect(stored.json()).toMatchObject({ method: 'card', label: '1111' });
    const next = await authorized(t, m, {
      payment_method: { method: 'id', id: first.payment_method.id },
      payment_source: 'recurring',
      merchant_initiated: true,
      is_subsequent_payment: true,
    });
    expect(next).toMatchObject({
      status: 'authorization_succeeded',
      instrument_type: 'card_token',
      payment_method: { id: first.payment_method.id },
    });
  });

  it('does not vault a declined card, and requires store for the first payment of a series', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const declined = await authorized(t, m, { store: true, payment_method: card('4000000000000002') });
    expect(declined.payment_method.id).toBeNull();
    const res = await createTransaction(t, m, { payment_source: 'installment' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].pointer).toBe('/store');
  });
});

describe('errors', () => {
  it('answers 400 when no payment service can take the transaction', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await createTransaction(t, m, { currency: 'JPY' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('No active payment service accepts method card in JPY');
  });
});
