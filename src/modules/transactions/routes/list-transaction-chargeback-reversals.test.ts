import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';

/** `GET /transactions/{id}/chargeback-reversals`: the chargeback reversal lines of the payment service's settlement reports. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const get = (m: string, url: string) => t.request({ method: 'GET', url, merchantAccountId: m });
const DISPUTE_REVERSED = '4000000000000630';

async function settled(m: string, number: string, amount = 1000, currency = 'USD') {
  const txn = await authorized(t, m, { intent: 'capture', amount, currency, payment_method: card(number) });
  await t.deps.queue.drain(t.deps);
  return txn;
}

describe('happy', () => {
  it('the reversed dispute test card: its chargeback and one reversal of the same amount, on the same report, without a fee', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { accepted_currencies: ['EUR'] });
    const txn = await settled(m, DISPUTE_REVERSED, 870, 'EUR');
    const res = await t.request({
      method: 'GET',
      url: `/transactions/${txn.id}/chargeback-reversals`,
      merchantAccountId: m,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [chargeback] = (await get(m, `/transactions/${txn.id}/chargebacks`)).json().items;
    const { items } = res.json();
    expect(res.json()).toEqual({
      items: [
        {
          type: 'chargeback-reversal',
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          merchant_account_id: m,
          created_at: items[0].created_at,
          updated_at: items[0].created_at,
          posted_at: chargeback.posted_at,
          ingested_at: chargeback.ingested_at,
          currency: 'EUR',
          amount: 870,
          exchange_rate: null,
          commission: 0,
          interchange: null,
          markup: null,
          scheme_fee: null,
          payment_service_report_id: chargeback.payment_service_report_id,
          payment_service_report_file_ids: chargeback.payment_service_report_file_ids,
          transaction_id: txn.id,
        },
      ],
    });
    expect(items[0].id).not.toBe(chargeback.id);
    expect(chargeback).toMatchObject({ type: 'chargeback', amount: 870, commission: 1500 });
    // Disputed stays true: the transaction was disputed, and won.
    expect((await get(m, `/transactions/${txn.id}`)).json()).toMatchObject({ disputed: true });
    const events = (await get(m, `/transactions/${txn.id}/events?limit=100`)).json().items;
    expect(
      events
        .filter((e: { name: string }) => e.name === 'payment-connector-report-chargeback-reversal-posted')
        .map((e: { context: unknown }) => e.context),
    ).toEqual([{ chargeback_reversal_id: items[0].id, amount: 870, currency: 'EUR' }]);
  });

  it('an empty list for a chargeback that was not reversed, and for a transaction without a dispute', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const lost = await settled(m, '4000000000000259');
    expect((await get(m, `/transactions/${lost.id}/chargeback-reversals`)).json()).toEqual({ items: [] });
    const plain = await settled(m, '4111111111111111');
    expect((await get(m, `/transactions/${plain.id}/chargeback-reversals`)).json()).toEqual({ items: [] });
  });
});

describe('errors', () => {
  it('404 not_found for an unknown transaction, 422 for an id that is not a uuid', async () => {
    const res = await get('default', `/transactions/${uuidv7()}/chargeback-reversals`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'error', code: 'not_found', status: 404 });
    expect((await get('default', '/transactions/nope/chargeback-reversals')).statusCode).toBe(422);
  });
});

describe('security', () => {
  let m: string;
  let txnId: string;
  beforeAll(async () => {
    ({ merchantAccountId: m } = await merchantWithMockCard(t));
    txnId = (await settled(m, DISPUTE_REVERSED)).id;
  });

  runScopeTests(() => t, {
    request: () => ({ method: 'GET', url: `/transactions/${txnId}/chargeback-reversals`, merchantAccountId: m }),
    scope: 'transactions.read',
  });

  it("answers 404 for another merchant account's transaction, and shows nothing of it", async () => {
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    const res = await get(other, `/transactions/${txnId}/chargeback-reversals`);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain(m);
    expect(res.body).not.toContain('"amount"');
  });
});
