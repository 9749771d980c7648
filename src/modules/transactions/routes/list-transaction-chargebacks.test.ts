import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { settleTransaction } from '../settlements/settlements.service.ts';

/** `GET /transactions/{id}/chargebacks`: the chargeback lines of the payment service's settlement reports. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const get = (m: string, url: string) => t.request({ method: 'GET', url, merchantAccountId: m });
const DISPUTE = '4000000000000259';
const DISPUTE_REVERSED = '4000000000000630';

/** A transaction of the card, captured and settled by the sandbox (its settlement job run). */
async function settled(m: string, number: string, amount = 1000) {
  const txn = await authorized(t, m, { intent: 'capture', amount, payment_method: card(number) });
  await t.deps.queue.drain(t.deps);
  return txn;
}

describe('happy', () => {
  it('the dispute test card: one chargeback of the captured amount, posted by the settlement report, with the settlement fields', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await settled(m, DISPUTE, 1234);
    const res = await get(m, `/transactions/${txn.id}/chargebacks`);
    expect(res.statusCode, res.body).toBe(200);
    const [settlement] = (await get(m, `/transactions/${txn.id}/settlements`)).json().items;
    const { items } = res.json();
    expect(res.json()).toEqual({
      items: [
        {
          type: 'chargeback',
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          merchant_account_id: m,
          created_at: items[0].created_at,
          updated_at: items[0].created_at,
          posted_at: settlement.posted_at,
          ingested_at: settlement.ingested_at,
          currency: 'USD',
          amount: 1234,
          exchange_rate: null,
          commission: 1500,
          interchange: null,
          markup: null,
          scheme_fee: null,
          payment_service_report_id: settlement.payment_service_report_id,
          payment_service_report_file_ids: settlement.payment_service_report_file_ids,
          transaction_id: txn.id,
        },
      ],
    });
    // The fields in the public API's order.
    expect(Object.keys(items[0])).toEqual([
      'type',
      'id',
      'merchant_account_id',
      'created_at',
      'updated_at',
      'posted_at',
      'ingested_at',
      'currency',
      'amount',
      'exchange_rate',
      'commission',
      'interchange',
      'markup',
      'scheme_fee',
      'payment_service_report_id',
      'payment_service_report_file_ids',
      'transaction_id',
    ]);
    expect(settlement.payment_service_report_id).toMatch(/^sandbox-report-\d{4}-\d\d-\d\d$/);
    expect((await get(m, `/transactions/${txn.id}`)).json()).toMatchObject({
      disputed: true,
      settled: true,
      settled_amount: 1234,
    });
    const events = (await get(m, `/transactions/${txn.id}/events?limit=100`)).json().items;
    expect(
      events
        .filter((e: { name: string }) => e.name === 'payment-connector-report-chargeback-posted')
        .map((e: { context: unknown }) => e.context),
    ).toEqual([{ chargeback_id: items[0].id, amount: 1234, currency: 'USD', reason: 'fraudulent' }]);
    expect((await get(m, `/transactions/${txn.id}/chargeback-reversals`)).json()).toEqual({ items: [] });
  });

  it('a settlement that runs again posts no second chargeback', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await settled(m, DISPUTE_REVERSED);
    await settleTransaction(t.deps, m, txn.id);
    expect((await get(m, `/transactions/${txn.id}/chargebacks`)).json().items).toHaveLength(1);
    expect((await get(m, `/transactions/${txn.id}/chargeback-reversals`)).json().items).toHaveLength(1);
  });

  it('an empty list for a card without a dispute, settled or not', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const plain = await settled(m, '4111111111111111');
    expect((await get(m, `/transactions/${plain.id}/chargebacks`)).json()).toEqual({ items: [] });
    expect((await get(m, `/transactions/${plain.id}`)).json()).toMatchObject({ disputed: false, settled: true });
    const open = await authorized(t, m, { payment_method: card(DISPUTE) });
    expect((await get(m, `/transactions/${open.id}/chargebacks`)).json()).toEqual({ items: [] });
  });
});

describe('errors', () => {
  it('404 not_found for an unknown transaction', async () => {
    const id = uuidv7();
    const res = await get('default', `/transactions/${id}/chargebacks`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'error', code: 'not_found', status: 404, details: [] });
    expect(res.json().message).toContain(id);
  });

  it('422 for an id that is not a uuid', async () => {
    const res = await get('default', '/transactions/nope/chargebacks');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['path', 'transaction_id']);
  });
});

describe('security', () => {
  let m: string;
  let txnId: string;
  beforeAll(async () => {
    ({ merchantAccountId: m } = await merchantWithMockCard(t));
    txnId = (await settled(m, DISPUTE)).id;
  });

  runScopeTests(() => t, {
    request: () => ({ method: 'GET', url: `/transactions/${txnId}/chargebacks`, merchantAccountId: m }),
    scope: 'transactions.read',
  });

  it("answers 404 for another merchant account's transaction, and shows nothing of it", async () => {
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    const res = await get(other, `/transactions/${txnId}/chargebacks`);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain(m);
    expect(res.body).not.toContain('"amount"');
  });
});
