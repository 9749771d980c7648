import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { settleTransaction } from '../../src/modules/transactions/settlements/settlements.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { authorized, card, merchantWithMockCard } from '../helpers/transactions.ts';

/** Every capture settles on its own, final or not (decision 0054). */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const MULTI = [
  { key: 'merchant_id', value: 'm-1' },
  { key: 'multi_capture_enabled', value: 'true' },
];
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
async function capture(m: string, id: string, payload: object) {
  const res = await t.request({ method: 'POST', url: `/transactions/${id}/capture`, merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const amounts = async (m: string, id: string) =>
  (await get(m, `/transactions/${id}/settlements`)).items
    .map((s: { amount: number }) => s.amount)
    .sort((a: number, b: number) => a - b);

describe('happy', () => {
  it('partial captures without a final one are settled one by one; a later final capture settles only its part', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m);
    await capture(m, txn.id, { amount: 300, final: false });
    await capture(m, txn.id, { amount: 200, final: false });
    await t.deps.queue.drain(t.deps);
    expect(await amounts(m, txn.id)).toEqual([200, 300]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 500,
      settled: true,
      settled_amount: 500,
      settled_currency: 'USD',
    });

    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 100 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    await t.deps.queue.drain(t.deps);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled_amount: 400 });

    await capture(m, txn.id, { final: true });
    await t.deps.queue.drain(t.deps);
    expect(await amounts(m, txn.id)).toEqual([-100, 200, 300, 500]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ captured_amount: 1000, settled_amount: 900 });
    const events = (await get(m, `/transactions/${txn.id}/events`)).items.filter(
      (e: { name: string }) => e.name === 'payment-connector-report-transaction-settled',
    );
    expect(events).toHaveLength(4);
  });

  it('a capture confirmed by reconciliation settles on its own', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m, { payment_method: card('4000000000000077') });
    expect((await capture(m, txn.id, { amount: 400, final: false })).status).toBe('pending');
    await t.deps.queue.drain(t.deps);
    expect(await amounts(m, txn.id)).toEqual([]);
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 10 * 60_000));
    await t.deps.queue.drain(t.deps);
    expect(await amounts(m, txn.id)).toEqual([400]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      captured_amount: 400,
      settled: true,
      settled_amount: 400,
    });
  });

  it('an authorize-and-capture transaction still settles once, whole', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { intent: 'capture' });
    await t.deps.queue.drain(t.deps);
    expect(await amounts(m, txn.id)).toEqual([1000]);
  });
});

describe('errors', () => {
  it('settling again (a job that runs twice, or the whole-amount job after the captures) never exceeds the captured amount', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m);
    const first = await capture(m, txn.id, { amount: 250, final: false });
    await t.deps.queue.drain(t.deps);
    const attempt = await t.deps.db
      .selectFrom('transaction_attempts')
      .select('id')
      .where('transaction_id', '=', txn.id)
      .where('operation', '=', 'capture')
      .executeTakeFirstOrThrow();
    await settleTransaction(t.deps, m, txn.id, attempt.id);
    await settleTransaction(t.deps, m, txn.id);
    expect(await amounts(m, txn.id)).toEqual([250]);
    expect(first.transaction.captured_amount).toBe(250);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled_amount: 250 });
  });

  it('an authorization that captured nothing (intent authorize) settles nothing', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m);
    await capture(m, txn.id, { amount: 100, final: false });
    const authorization = await t.deps.db
      .selectFrom('transaction_attempts')
      .select('id')
      .where('transaction_id', '=', txn.id)
      .where('operation', '=', 'authorize')
      .executeTakeFirstOrThrow();
    await settleTransaction(t.deps, m, txn.id, authorization.id);
    expect(await amounts(m, txn.id)).toEqual([]);
    await t.deps.queue.drain(t.deps);
    expect(await amounts(m, txn.id)).toEqual([100]);
  });

  it("a settlement names its transaction's own capture: another transaction's, another account's or an unknown attempt settles nothing", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const { merchantAccountId: other } = await merchantWithMockCard(t, { fields: MULTI });
    const [txn, second, elsewhere] = [await authorized(t, m), await authorized(t, m), await authorized(t, other)];
    await capture(m, txn.id, { amount: 100, final: false });
    await capture(m, second.id, { amount: 200, final: false });
    await capture(other, elsewhere.id, { amount: 300, final: false });
    const captureOf = (id: string) =>
      t.deps.db
        .selectFrom('transaction_attempts')
        .select('id')
        .where('transaction_id', '=', id)
        .where('operation', '=', 'capture')
        .executeTakeFirstOrThrow();
    const [own, ofSecond, ofElsewhere] = [
      await captureOf(txn.id),
      await captureOf(second.id),
      await captureOf(elsewhere.id),
    ];
    await settleTransaction(t.deps, m, txn.id, ofSecond.id);
    await settleTransaction(t.deps, m, txn.id, ofElsewhere.id);
    await settleTransaction(t.deps, m, txn.id, '01900000-0000-7000-8000-000000000000');
    expect(await amounts(m, txn.id)).toEqual([]);
    await settleTransaction(t.deps, m, txn.id, own.id);
    expect(await amounts(m, txn.id)).toEqual([100]);
  });
});
