import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { INCREMENT_AMOUNT_SCENARIOS } from '../../../connectors/mock/mock-card.scenarios.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const ENABLED = [
  { key: 'merchant_id', value: 'm-1' },
  { key: 'incremental_authorization_enabled', value: 'true' },
];
const increment = (m: string, id: string, amount: unknown, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: `/transactions/${id}/authorization/increment`,
    merchantAccountId: m,
    payload: { amount },
    headers,
  });
const attempts = async (id: string) =>
  (
    await sql<{
      status: string;
      amount: string;
      error_code: string | null;
    }>`SELECT status, amount, error_code FROM transaction_attempts WHERE transaction_id = ${id} AND operation = 'increment' ORDER BY id`.execute(
      t.deps.db,
    )
  ).rows;

async function openAuthorization() {
  const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: ENABLED });
  return { m, txn: await authorized(t, m, { amount: 1000 }) };
}

describe('happy', () => {
  it('raises the authorization by the increase; a capture without an amount then takes the whole', async () => {
    const { m, txn } = await openAuthorization();
    const res = await increment(m, txn.id, 500, { 'idempotency-key': 'inc-1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'transaction-authorization-increment',
      status: 'succeeded',
      code: null,
      raw_response_code: null,
      transaction: { id: txn.id, amount: 1000, authorized_amount: 1500, status: 'authorization_succeeded' },
    });
    const replay = await increment(m, txn.id, 500, { 'idempotency-key': 'inc-1' });
    expect(replay.body).toBe(res.body);
    expect(await attempts(txn.id)).toEqual([{ status: 'succeeded', amount: expect.anything(), error_code: null }]);
    const capture = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
    expect(capture.json().transaction).toMatchObject({ status: 'capture_succeeded', captured_amount: 1500 });
    const events = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/events`, merchantAccountId: m })
    ).json().items;
    expect(
      events.some(
        (e: { name: string; context: { operation?: string } }) =>
          e.name === 'transaction-modified-event' && e.context.operation === 'increment',
      ),
    ).toBe(true);
  });

  it('keeps concurrent increases apart: each approved one counts once', async () => {
    const { m, txn } = await openAuthorization();
    const results = await Promise.all(Array.from({ length: 5 }, () => increment(m, txn.id, 100)));
    expect(results.map((r) => r.json().status)).toEqual(Array(5).fill('succeeded'));
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json()
        .authorized_amount,
    ).toBe(1500);
  });

  it('answers each documented increase amount as the table says, and leaves the amount as it was unless approved', async () => {
    for (const [amount, { scenario }] of INCREMENT_AMOUNT_SCENARIOS) {
      const { m, txn } = await openAuthorization();
      const res = await increment(m, txn.id, amount);
      expect(res.statusCode, res.body).toBe(200);
      const expected = {
        decline: scenario.kind === 'decline' ? scenario.errorCode : null,
        fail: scenario.kind === 'fail' ? scenario.errorCode : null,
        timeout: 'timeout',
        unavailable: 'service_network_error',
      }[scenario.kind as 'decline' | 'fail' | 'timeout' | 'unavailable'];
      expect(res.json()).toMatchObject({ status: 'failed', code: expected, transaction: { authorized_amount: 1000 } });
    }
  });

  it('applies an increase whose answer was lost once reconciliation finds it approved', async () => {
    const { m, txn } = await openAuthorization();
    await increment(m, txn.id, 4408);
    expect(await attempts(txn.id)).toMatchObject([{ status: 'unknown', error_code: 'timeout' }]);
    const synced = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/sync`,
      merchantAccountId: m,
      payload: {},
    });
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ authorized_amount: 1000 + 4408, status: 'authorization_succeeded' });
    expect(await attempts(txn.id)).toMatchObject([{ status: 'succeeded' }]);
  });

  it('publishes incremental_authorization among the features of mock-card', async () => {
    const res = await t.request({ method: 'GET', url: '/payment-service-definitions/mock-card' });
    expect(res.json().supported_features).toMatchObject({ incremental_authorization: true });
  });
});

describe('errors', () => {
  it('refuses a connection without incremental authorization, a closed authorization, a zero or negative increase', async () => {
    const { merchantAccountId: plain } = await merchantWithMockCard(t);
    const other = await authorized(t, plain, { amount: 1000 });
    const off = await increment(plain, other.id, 100);
    expect(off.statusCode).toBe(400);
    expect(off.json().message).toBe(
      'Incremental authorization is not enabled on this payment service connection (its incremental_authorization_enabled field)',
    );
    const { m, txn } = await openAuthorization();
    expect((await increment(m, txn.id, 0)).json()).toMatchObject({ status: 400, details: [{ pointer: '/amount' }] });
    const negative = await increment(m, txn.id, -1);
    expect(negative.statusCode).toBe(422);
    expect(negative.json().detail[0].loc).toEqual(['body', 'amount']);
    expect((await increment(m, txn.id, 99_999_999)).json()).toMatchObject({
      status: 400,
      details: [{ pointer: '/amount' }],
    });
    await t.request({ method: 'POST', url: `/transactions/${txn.id}/void`, merchantAccountId: m, payload: {} });
    const closed = await increment(m, txn.id, 100);
    expect(closed.statusCode).toBe(400);
    expect(closed.json().message).toMatch(
      /Only an open authorization can be raised; this transaction is authorization_voided/,
    );
    expect(await attempts(txn.id)).toEqual([]);
  });

  it('answers 404 for an unknown transaction', async () => {
    const { m } = await openAuthorization();
    expect((await increment(m, UNKNOWN, 100)).statusCode).toBe(404);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({
      method: 'POST',
      url: `/transactions/${UNKNOWN}/authorization/increment`,
      payload: { amount: 1 },
    }),
    scope: 'transactions.write',
  });

  it("does not raise another merchant account's authorization", async () => {
    const { m, txn } = await openAuthorization();
    const other = await createMerchantAccount(t.deps);
    expect((await increment(other, txn.id, 100)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json()
        .authorized_amount,
    ).toBe(1000);
  });
});
