import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';

/** `GET /transactions/{id}/refund-settlements` and `GET .../refund-settlements/{settlement_id}`: the settlements of a transaction's refunds. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const get = (m: string, url: string) => t.request({ method: 'GET', url, merchantAccountId: m });
const refund = (m: string, id: string, amount: number) =>
  t.request({ method: 'POST', url: `/transactions/${id}/refunds`, merchantAccountId: m, payload: { amount } });

/** A captured transaction with two refunds, everything settled. */
async function settledWithRefunds(m: string) {
  const txn = await authorized(t, m, { intent: 'capture' });
  const refunds = [(await refund(m, txn.id, 100)).json(), (await refund(m, txn.id, 250)).json()];
  await t.deps.queue.drain(t.deps);
  return { txn, refunds };
}

describe('happy', () => {
  it("lists the settlements of the transaction's refunds, not of its capture, and reads each", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const { txn, refunds } = await settledWithRefunds(m);
    const res = await get(m, `/transactions/${txn.id}/refund-settlements`);
    expect(res.statusCode, res.body).toBe(200);
    const { items } = res.json();
    expect(Object.keys(res.json())).toEqual(['items']);
    expect(items.map((s: { refund_id: string; amount: number }) => [s.refund_id, s.amount]).sort()).toEqual(
      [
        [refunds[0].id, -100],
        [refunds[1].id, -250],
      ].sort(),
    );
    expect(items[0]).toMatchObject({
      type: 'refund-settlement',
      merchant_account_id: m,
      transaction_id: txn.id,
      currency: 'USD',
      commission: 0,
      exchange_rate: null,
      interchange: null,
      markup: null,
      scheme_fee: null,
      payment_service_report_id: expect.any(String),
      payment_service_report_file_ids: [expect.any(String)],
      posted_at: expect.any(String),
      ingested_at: expect.any(String),
    });
    const all = (await get(m, `/transactions/${txn.id}/settlements`)).json().items;
    expect(all).toHaveLength(3);
    for (const item of items) {
      const one = await get(m, `/transactions/${txn.id}/refund-settlements/${item.id}`);
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toEqual(item);
      // The same record as in GET .../settlements, with its refund.
      const { type: _type, refund_id: _refund, ...common } = item;
      expect(all).toContainEqual({ ...common, type: 'settlement' });
    }
  });

  it('a refund says settled once its settlement record exists, in every read of it', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { intent: 'capture' });
    const created = (await refund(m, txn.id, 100)).json();
    expect(created).toMatchObject({ status: 'succeeded', settled: false });
    expect((await get(m, `/refunds/${created.id}`)).json().settled).toBe(false);
    await t.deps.queue.drain(t.deps);
    const settled = (await get(m, `/refunds/${created.id}`)).json();
    expect(settled).toMatchObject({ id: created.id, status: 'succeeded', settled: true });
    expect(Date.parse(settled.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect((await get(m, `/transactions/${txn.id}/refunds/${created.id}`)).json()).toEqual(settled);
    expect((await get(m, `/transactions/${txn.id}/refunds`)).json().items).toEqual([settled]);
    const [record] = (await get(m, `/transactions/${txn.id}/refund-settlements`)).json().items;
    expect(record.refund_id).toBe(created.id);
  });

  it('a refund the payment service declined never settles', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, {
      intent: 'capture',
      payment_method: { method: 'card', number: '4000000000000341', expiration_date: '12/40', security_code: '123' },
    });
    const declined = (await refund(m, txn.id, 100)).json();
    expect(declined.status).toBe('declined');
    await t.deps.queue.drain(t.deps);
    expect((await get(m, `/refunds/${declined.id}`)).json()).toMatchObject({ status: 'declined', settled: false });
  });

  it('an empty list before any refund settles', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { intent: 'capture' });
    expect((await get(m, `/transactions/${txn.id}/refund-settlements`)).json()).toEqual({ items: [] });
  });
});

describe('errors', () => {
  it("404 for an unknown transaction or settlement, a capture's settlement, or another transaction's", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const { txn } = await settledWithRefunds(m);
    const other = await authorized(t, m);
    const [own] = (await get(m, `/transactions/${txn.id}/refund-settlements`)).json().items;
    const captureSettlement = (await get(m, `/transactions/${txn.id}/settlements`))
      .json()
      .items.find((s: { amount: number }) => s.amount > 0);
    const unknown = uuidv7();
    expect((await get(m, `/transactions/${unknown}/refund-settlements`)).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect((await get(m, `/transactions/${txn.id}/refund-settlements/${unknown}`)).statusCode).toBe(404);
    expect((await get(m, `/transactions/${txn.id}/refund-settlements/${captureSettlement.id}`)).statusCode).toBe(404);
    expect((await get(m, `/transactions/${other.id}/refund-settlements/${own.id}`)).statusCode).toBe(404);
  });

  it('422 for ids that are not uuids', async () => {
    const res = await get('default', `/transactions/${uuidv7()}/refund-settlements/nope`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['path', 'settlement_id']);
  });
});

describe('security', () => {
  let m: string;
  let txnId: string;
  let settlementId: string;
  beforeAll(async () => {
    ({ merchantAccountId: m } = await merchantWithMockCard(t));
    txnId = (await settledWithRefunds(m)).txn.id;
    settlementId = (await get(m, `/transactions/${txnId}/refund-settlements`)).json().items[0].id;
  });

  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `/transactions/${txnId}/refund-settlements`, merchantAccountId: m }),
      scope: 'transactions.read',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({
        method: 'GET',
        url: `/transactions/${txnId}/refund-settlements/${settlementId}`,
        merchantAccountId: m,
      }),
      scope: 'transactions.read',
    }));

  it("answers 404 for another merchant account's transaction and refund settlement", async () => {
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    expect((await get(other, `/transactions/${txnId}/refund-settlements`)).statusCode).toBe(404);
    expect((await get(other, `/transactions/${txnId}/refund-settlements/${settlementId}`)).statusCode).toBe(404);
  });
});
