import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleRefund, settleTransaction } from '../../src/modules/transactions/settlements/settlements.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { authorized, card, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * A settlement writes its record, the transaction's change, its webhook events and its history in
 * one statement, under the transaction's row lock (settlements.service.ts): settlements racing on
 * one transaction write one record each, and the webhook snapshot is the row as stored.
 */
let t: TestApp;
beforeAll(async () => {
  // Settled by hand here: the jobs stay far in the future.
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '86400' });
});
afterAll(async () => t.close());

const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
const settlementsOf = (m: string, id: string) =>
  t.deps.db
    .selectFrom('settlements')
    .selectAll()
    .where('merchant_account_id', '=', m)
    .where('transaction_id', '=', id)
    .execute();
const eventsOf = (m: string, id: string, kind: string) =>
  t.deps.db
    .selectFrom('events')
    .selectAll()
    .where('merchant_account_id', '=', m)
    .where('resource_id', '=', id)
    .where('kind', '=', kind)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const history = async (m: string, id: string, name: string) =>
  (await get(m, `/transactions/${id}/events`)).items.filter((e: { name: string }) => e.name === name);

async function captured(m: string, payment?: object) {
  const txn = await authorized(t, m, { intent: 'capture', ...(payment ? { payment_method: payment } : {}) });
  expect(txn.status).toBe('capture_succeeded');
  return txn;
}

describe('happy', () => {
  it('settles a capture with its webhook snapshot as stored, then a refund lowers the net amount once', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const txn = await captured(m);
    await settleTransaction(t.deps, m, txn.id);
    const stored = await get(m, `/transactions/${txn.id}`);
    expect(stored).toMatchObject({ settled: true, settled_amount: 1000, settled_currency: 'USD', disputed: false });
    const [settledEvent] = await eventsOf(m, txn.id, 'transaction.settled');
    // The snapshot was rendered before the update ran, from the row it would leave.
    expect(settledEvent!.payload).toMatchObject({ settled: true, settled_amount: 1000, updated_at: stored.updated_at });
    const [record] = await settlementsOf(m, txn.id);
    expect(record).toMatchObject({ amount: 1000, commission: 25, refund_id: null, capture_attempt_id: null });
    expect((await history(m, txn.id, 'payment-connector-report-transaction-settled'))[0].context).toMatchObject({
      settlement_id: record!.id,
      amount: 1000,
    });

    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 300 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    await settleRefund(t.deps, m, txn.id, refund.json().id);
    await settleRefund(t.deps, m, txn.id, refund.json().id);
    const after = await get(m, `/transactions/${txn.id}`);
    expect(after).toMatchObject({ settled_amount: 700 });
    expect((await settlementsOf(m, txn.id)).map((s) => s.amount).sort((a, b) => a - b)).toEqual([-300, 1000]);
    const snapshots = await eventsOf(m, txn.id, 'transaction.settled');
    expect(snapshots).toHaveLength(2);
    expect(snapshots[1]!.payload).toMatchObject({ settled_amount: 700, updated_at: after.updated_at });
  });

  it('a refund settled before its transaction leaves the transaction as it is', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const txn = await captured(m);
    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 100 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    const before = await get(m, `/transactions/${txn.id}`);
    await settleRefund(t.deps, m, txn.id, refund.json().id);
    expect(await get(m, `/transactions/${txn.id}`)).toEqual(before);
    expect(await eventsOf(m, txn.id, 'transaction.settled')).toHaveLength(0);
    await settleTransaction(t.deps, m, txn.id);
    // Every settlement so far, net: the capture less the refund already settled.
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled: true, settled_amount: 900 });
  });

  it('the dispute test card writes its three webhook events and two chargeback entries in the same statement', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const txn = await captured(m, card('4000000000000630'));
    await settleTransaction(t.deps, m, txn.id);
    const stored = await get(m, `/transactions/${txn.id}`);
    expect(stored).toMatchObject({ disputed: true, settled: true });
    for (const kind of ['transaction.settled', 'transaction.disputed', 'transaction.chargeback_reversed']) {
      const events = await eventsOf(m, txn.id, kind);
      expect(events, kind).toHaveLength(1);
      expect(events[0]!.payload).toMatchObject({ disputed: true, updated_at: stored.updated_at });
    }
    expect(await history(m, txn.id, 'payment-connector-report-chargeback-posted')).toHaveLength(1);
    expect(await history(m, txn.id, 'payment-connector-report-chargeback-reversal-posted')).toHaveLength(1);
    const lines = await t.deps.db
      .selectFrom('chargebacks')
      .select(['kind', 'amount', 'report_line_id'])
      .where('merchant_account_id', '=', m)
      .orderBy('kind')
      .execute();
    expect(lines).toEqual([
      { kind: 'chargeback', amount: 1000, report_line_id: `sandbox-chargeback:${txn.id}` },
      { kind: 'chargeback-reversal', amount: 1000, report_line_id: `sandbox-chargeback-reversal:${txn.id}` },
    ]);
  });
});

describe('errors', () => {
  it('settlements racing on one transaction write one record each, and the net amount counts each once', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await captured(m);
    const refunds = [];
    for (const amount of [100, 200]) {
      const res = await t.request({
        method: 'POST',
        url: `/transactions/${txn.id}/refunds`,
        merchantAccountId: m,
        payload: { amount },
      });
      expect(res.statusCode, res.body).toBe(201);
      refunds.push(res.json().id as string);
    }
    const runs = [
      ...Array.from({ length: 6 }, () => settleTransaction(t.deps, m, txn.id)),
      ...refunds.flatMap((id) => Array.from({ length: 4 }, () => settleRefund(t.deps, m, txn.id, id))),
    ];
    const outcomes = await Promise.allSettled(runs);
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    expect((await settlementsOf(m, txn.id)).map((s) => s.amount).sort((a, b) => a - b)).toEqual([-200, -100, 1000]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled: true, settled_amount: 700 });
    expect(await history(m, txn.id, 'payment-connector-report-transaction-settled')).toHaveLength(3);
  });
});
