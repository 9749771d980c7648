import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { reconcileDueAttempts } from '../reconcile/reconcile.service.ts';

/** Capture, void, cancel and refund rules of the engine, through HTTP. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const MULTI = [
  { key: 'merchant_id', value: 'm-1' },
  { key: 'multi_capture_enabled', value: 'true' },
];
const post = (m: string, url: string, payload?: object, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url, merchantAccountId: m, headers, ...(payload ? { payload } : {}) });
const capture = (m: string, id: string, payload: object = {}, headers: Record<string, string> = {}) =>
  post(m, `/transactions/${id}/capture`, payload, headers);
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();

async function setOverCapture(m: string, over_capture_amount: number | null, over_capture_percentage: number | null) {
  const res = await t.request({
    method: 'PUT',
    url: `/merchant-accounts/${m}`,
    payload: { over_capture_amount, over_capture_percentage },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('happy', () => {
  it('a partial capture closes the authorization; the rest is not captured', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await capture(m, txn.id, { amount: 400 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'transaction-capture',
      status: 'succeeded',
      code: null,
      raw_response_code: null,
      transaction: {
        id: txn.id,
        status: 'capture_succeeded',
        intent_outcome: 'succeeded',
        captured_amount: 400,
        authorized_amount: 1000,
      },
    });
    const again = await capture(m, txn.id, {});
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toContain('final capture');
  });

  it('amount omitted captures the whole authorized amount', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    expect((await capture(m, txn.id)).json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 1000 },
    });
  });

  it('multi-capture: several partial captures, then a final one of the rest with amount omitted', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m);
    for (const [amount, total] of [
      [100, 100],
      [250, 350],
      [50, 400],
    ]) {
      const res = await capture(m, txn.id, { amount, final: false });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'succeeded',
        transaction: { status: 'capture_succeeded', captured_amount: total },
      });
    }
    const final = await capture(m, txn.id, { final: true });
    expect(final.statusCode, final.body).toBe(200);
    expect(final.json().transaction).toMatchObject({ captured_amount: 1000 });
    expect((await capture(m, txn.id, { amount: 1, final: false })).statusCode).toBe(400);
    expect(
      (
        await t.deps.db
          .selectFrom('transaction_attempts')
          .select(['amount', 'final', 'status'])
          .where('transaction_id', '=', txn.id)
          .where('operation', '=', 'capture')
          .orderBy('created_at')
          .execute()
      ).map((a) => [Number(a.amount), a.final, a.status]),
    ).toEqual([
      [100, false, 'succeeded'],
      [250, false, 'succeeded'],
      [50, false, 'succeeded'],
      [600, true, 'succeeded'],
    ]);
  });

  it('multi-capture: a further capture that is pending at the provider', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m, { amount: 2077 });
    expect((await capture(m, txn.id, { amount: 500, final: false })).json()).toMatchObject({
      status: 'pending',
      transaction: { status: 'capture_pending' },
    });
    expect((await post(m, `/transactions/${txn.id}/sync`)).json()).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 500,
    });
    const second = await capture(m, txn.id, {});
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({
      status: 'pending',
      transaction: { status: 'capture_pending', captured_amount: 500 },
    });
    expect((await post(m, `/transactions/${txn.id}/sync`)).json()).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 2077,
    });
  });

  it('over-capture up to the smaller of the amount and the percentage allowance', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await setOverCapture(m, 100, 20);
    const byAmount = await authorized(t, m);
    expect((await capture(m, byAmount.id, { amount: 1101 })).statusCode).toBe(400);
    expect((await capture(m, byAmount.id, { amount: 1100 })).json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 1100, authorized_amount: 1000 },
    });
    await setOverCapture(m, 100, 5);
    const byPercentage = await authorized(t, m);
    const refused = await capture(m, byPercentage.id, { amount: 1051 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0]).toMatchObject({
      pointer: '/amount',
      message: expect.stringContaining('at most 1050'),
    });
    expect((await capture(m, byPercentage.id, { amount: 1050 })).json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 1050 },
    });
  });

  it('over-capture also for an authorization found by reconciliation after a timeout', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await setOverCapture(m, 100, 20);
    const txn = await authorized(t, m, { payment_method: card('4000000000000408') });
    expect(txn.status).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 10 * 60_000));
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      authorized_amount: 1000,
    });
    expect((await capture(m, txn.id, { amount: 1101 })).statusCode).toBe(400);
    expect((await capture(m, txn.id, { amount: 1100 })).json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 1100 },
    });
  });

  it('prefer: resource=transaction returns the transaction instead of the capture record', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await capture(m, txn.id, { amount: 300 }, { prefer: 'resource=transaction' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'transaction',
      id: txn.id,
      status: 'capture_succeeded',
      captured_amount: 300,
    });
  });

  it('replays a capture with the same idempotency key byte for byte, without capturing twice', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m);
    const headers = { 'idempotency-key': `cap-${txn.id}` };
    const first = await capture(m, txn.id, { amount: 200, final: false }, headers);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await capture(m, txn.id, { amount: 200, final: false }, headers);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ captured_amount: 200 });
  });

  it('cancels a transaction that is still processing', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card('4000000000000408') });
    expect(txn.status).toBe('processing');
    const res = await post(m, `/transactions/${txn.id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'transaction-cancel',
      status: 'succeeded',
      transaction: { status: 'authorization_failed', error_code: 'canceled', intent_outcome: 'failed' },
    });
    expect((await post(m, `/transactions/${txn.id}/cancel`)).statusCode).toBe(400);
  });

  it('refunds partly, then the rest with amount omitted; refunds are readable both ways', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    await capture(m, txn.id, { amount: 800 });
    const partial = await post(m, `/transactions/${txn.id}/refunds`, { amount: 300, reason: 'damaged' });
    expect(partial.statusCode, partial.body).toBe(201);
    expect(partial.json()).toMatchObject({
      type: 'refund',
      status: 'succeeded',
      amount: 300,
      reason: 'damaged',
      transaction_id: txn.id,
    });
    const rest = await post(m, `/transactions/${txn.id}/refunds`, {});
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json()).toMatchObject({ status: 'succeeded', amount: 500 });
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ captured_amount: 800, refunded_amount: 800 });
    const id = partial.json().id;
    expect(await get(m, `/refunds/${id}`)).toEqual(partial.json());
    expect(await get(m, `/transactions/${txn.id}/refunds/${id}`)).toEqual(partial.json());
    const list = await get(m, `/transactions/${txn.id}/refunds`);
    expect(list.items.map((r: { id: string }) => r.id).sort()).toEqual([id, rest.json().id].sort());
  });

  it('refunds/all refunds what is left, then gives an empty list', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    await capture(m, txn.id, {});
    await post(m, `/transactions/${txn.id}/refunds`, { amount: 100 });
    const all = await post(m, `/transactions/${txn.id}/refunds/all`);
    expect(all.statusCode, all.body).toBe(201);
    expect(all.json().items).toHaveLength(1);
    expect(all.json().items[0]).toMatchObject({ type: 'refund', status: 'succeeded', amount: 900 });
    const again = await post(m, `/transactions/${txn.id}/refunds/all`);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().items).toEqual([]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ refunded_amount: 1000 });
  });
});

describe('errors', () => {
  it('final:false without multi-capture is refused at /final', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await capture(m, txn.id, { amount: 100, final: false });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([expect.objectContaining({ location: 'body', pointer: '/final' })]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      captured_amount: 0,
    });
  });

  it('refuses a capture above the authorized amount without an allowance', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await capture(m, txn.id, { amount: 1001 });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({
      pointer: '/amount',
      message: expect.stringContaining('1000 remains authorized'),
    });
    expect((await capture(m, txn.id, { amount: 1000 })).statusCode).toBe(200);
  });

  it('refuses a multi-capture beyond what is left', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m);
    await capture(m, txn.id, { amount: 700, final: false });
    expect((await capture(m, txn.id, { amount: 301, final: false })).statusCode).toBe(400);
    expect((await capture(m, txn.id, { amount: 300, final: false })).statusCode).toBe(200);
  });

  it('refuses to void a captured transaction', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    await capture(m, txn.id, { amount: 500 });
    const res = await post(m, `/transactions/${txn.id}/void`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('refund it instead');
  });

  it('refuses to cancel a transaction that has an outcome', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await post(m, `/transactions/${txn.id}/cancel`);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('authorization_succeeded');
  });

  it('refuses an over-refund and a refund of an uncaptured transaction', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    expect((await post(m, `/transactions/${txn.id}/refunds`, { amount: 1 })).statusCode).toBe(400);
    await capture(m, txn.id, { amount: 600 });
    const over = await post(m, `/transactions/${txn.id}/refunds`, { amount: 601 });
    expect(over.statusCode).toBe(400);
    expect(over.json().details[0]).toMatchObject({ pointer: '/amount' });
    await post(m, `/transactions/${txn.id}/refunds`, { amount: 600 });
    expect((await post(m, `/transactions/${txn.id}/refunds`, {})).statusCode).toBe(400);
  });
});

describe('security', () => {
  it("another merchant's transaction cannot be captured, voided, canceled or refunded (404)", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    for (const path of ['capture', 'void', 'cancel', 'refunds', 'refunds/all']) {
      expect(
        (
          await post(
            other,
            `/transactions/${txn.id}/${path}`,
            path === 'capture' || path === 'refunds' ? {} : undefined,
          )
        ).statusCode,
        path,
      ).toBe(404);
    }
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      captured_amount: 0,
    });
  });

  it("another merchant's refund is not found", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    await capture(m, txn.id, {});
    const refund = (await post(m, `/transactions/${txn.id}/refunds`, { amount: 10 })).json();
    expect(
      (await t.request({ method: 'GET', url: `/refunds/${refund.id}`, merchantAccountId: other })).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'GET',
          url: `/transactions/${txn.id}/refunds/${refund.id}`,
          merchantAccountId: other,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('a capture needs transactions.write', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: {},
      scopes: ['transactions.read'],
    });
    expect(res.statusCode).toBe(403);
  });
});
