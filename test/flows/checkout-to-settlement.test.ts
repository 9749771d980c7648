import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { authorized, card, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * The whole life of a payment: a checkout session collects the card, a transaction pays with it,
 * it is captured, partly refunded and settled by the job queue. The card number and the security
 * code appear in no response, no log line and none of the tables that keep history.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const PAN = '4242424242424242';
const CVV = '739';
/** The security code as a value of its own (not a run of digits inside an id, a timestamp or a number). */
const CVV_ALONE = new RegExp(`(?<![\\w.:+-])${CVV}(?![\\w.:+-])`);

const bodies: string[] = [];
async function send(options: Parameters<TestApp['request']>[0], anonymous = false): Promise<LightMyRequestResponse> {
  const res = anonymous ? await t.app.inject(options) : await t.request(options);
  bodies.push(res.body);
  return res;
}

function expectClean(where: string, text: string) {
  expect(text.includes(PAN), `${where} contains the card number`).toBe(false);
  expect(
    CVV_ALONE.test(text),
    `${where} contains the security code: ${text.match(new RegExp(`.{0,80}${CVV}.{0,80}`))?.[0]}`,
  ).toBe(false);
}

const stringify = (rows: unknown[]) => JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

describe('happy', () => {
  it('checkout session → transaction → capture → refund → settlement, without leaking card data', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const session = await send({
      method: 'POST',
      url: '/checkout/sessions',
      merchantAccountId: m,
      payload: { amount: 1500, currency: 'USD' },
    });
    expect(session.statusCode, session.body).toBe(201);
    const sessionId = session.json().id as string;

    // The browser sends the card with the session id as its only credential.
    const fields = await send(
      {
        method: 'POST',
        url: `/checkout/sessions/${sessionId}/fields`,
        payload: { payment_method: { method: 'card', number: PAN, expiration_date: '12/39', security_code: CVV } },
      },
      true,
    );
    expect(fields.statusCode, fields.body).toBe(204);

    const created = await send({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1500, currency: 'USD', payment_method: { method: 'checkout-session', id: sessionId } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const txn = created.json();
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      amount: 1500,
      cvv_response_code: 'match',
      checkout_session_id: sessionId,
      payment_method: { label: '4242' },
    });

    // The session's card data was used up by the first transaction.
    const second = await send({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1500, currency: 'USD', payment_method: { method: 'checkout-session', id: sessionId } },
    });
    expect(second.statusCode, second.body).toBe(400);

    const captured = await send({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
    expect(captured.statusCode, captured.body).toBe(200);
    expect(captured.json()).toMatchObject({
      status: 'succeeded',
      transaction: { status: 'capture_succeeded', captured_amount: 1500 },
    });

    const refund = await send({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 500 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 500 });

    expect(
      (await send({ method: 'GET', url: `/transactions/${txn.id}/settlements`, merchantAccountId: m })).json().items,
    ).toEqual([]);
    await t.deps.queue.drain(t.deps);
    const settlements = await send({ method: 'GET', url: `/transactions/${txn.id}/settlements`, merchantAccountId: m });
    expect(settlements.statusCode, settlements.body).toBe(200);
    // The capture settles gross; the refund has its own (negative) refund settlement.
    expect(settlements.json().items).toHaveLength(2);
    const settlement = settlements.json().items.find((s: { amount: number }) => s.amount > 0);
    expect(settlement).toMatchObject({ transaction_id: txn.id, currency: 'USD', amount: 1500 });
    expect(settlements.json().items.find((s: { amount: number }) => s.amount < 0)).toMatchObject({
      amount: -500,
      commission: 0,
    });
    const one = await send({
      method: 'GET',
      url: `/transactions/${txn.id}/settlements/${settlement.id}`,
      merchantAccountId: m,
    });
    expect(one.json()).toEqual(settlement);
    const after = await send({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(after.json()).toMatchObject({
      settled: true,
      settled_amount: 1000,
      captured_amount: 1500,
      refunded_amount: 500,
      disputed: false,
    });
    // A second drain (the job running again) settles nothing twice.
    await t.deps.queue.drain(t.deps);
    expect(
      (await send({ method: 'GET', url: `/transactions/${txn.id}/settlements`, merchantAccountId: m })).json().items,
    ).toHaveLength(2);
    for (const path of ['events', 'actions', 'refunds'])
      expect(
        (await send({ method: 'GET', url: `/transactions/${txn.id}/${path}`, merchantAccountId: m })).statusCode,
      ).toBe(200);
  });

  it('reconciliation settles a timed-out authorization', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card('4000000000000408') });
    expect(txn.status).toBe('processing');
    // Not due yet: nothing changes.
    await reconcileDueAttempts(t.deps, new Date());
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json().status,
    ).toBe('processing');
    expect(await reconcileDueAttempts(t.deps, new Date(Date.now() + 10 * 60_000))).toBeGreaterThanOrEqual(1);
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json(),
    ).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 1000 });
    const attempts = await t.deps.db
      .selectFrom('transaction_attempts')
      .select(['status', 'next_check_at'])
      .where('transaction_id', '=', txn.id)
      .execute();
    expect(attempts).toEqual([{ status: 'succeeded', next_check_at: null }]);
  });
  it('a late authorization found after a cancel is recorded on the attempt and logged; the transaction stays canceled', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card('4000000000000408') });
    expect(
      (await t.request({ method: 'POST', url: `/transactions/${txn.id}/cancel`, merchantAccountId: m })).statusCode,
    ).toBe(200);
    const warnings: object[] = [];
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 10 * 60_000), {
      warn: (obj) => warnings.push(obj),
      info: () => undefined,
    });
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json(),
    ).toMatchObject({ status: 'authorization_failed', error_code: 'canceled' });
    expect(
      await t.deps.db
        .selectFrom('transaction_attempts')
        .select('status')
        .where('transaction_id', '=', txn.id)
        .execute(),
    ).toEqual([{ status: 'succeeded' }]);
    expect(warnings).toContainEqual(expect.objectContaining({ transactionId: txn.id, answer: 'authorized' }));
  });
});

describe('security', () => {
  it('the card number and the security code appear in no response, log line or history table', async () => {
    expect(bodies.length).toBeGreaterThan(5);
    expect(t.logs.length).toBeGreaterThan(0);
    expect(CVV_ALONE.test('{"security_code":"739"}')).toBe(true);
    bodies.forEach((body, i) => expectClean(`response ${i}`, body));
    t.logs.forEach((line, i) => expectClean(`log line ${i}`, line));
    for (const table of [
      'audit_logs',
      'jobs',
      'transaction_events',
      'transactions',
      'transaction_attempts',
      'refunds',
      'settlements',
      'checkout_sessions',
    ] as const) {
      expectClean(table, stringify(await t.deps.db.selectFrom(table).selectAll().execute()));
    }
  });
});
