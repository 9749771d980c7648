import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementsCommand } from '../../src/cli/settlements.ts';
import {
  ingestSettlements,
  scheduleDailyIngestions,
} from '../../src/modules/settlements-ingestion/settlement-ingestion.service.ts';
import { DISPUTE_FEE, processingFee } from '../fakes/stripe-fake-balance.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { jsonCalls } from '../helpers/settlement-flows.ts';
import { downloadCsv, records, runReport } from '../helpers/reports.ts';
import { card } from '../helpers/transactions.ts';

/**
 * Settlements of a real connector come from its provider only (docs/settlements.md): a stripe-card
 * payment gets no simulated settlement, and the ingestion (the `ingest-settlements` job, the CLI)
 * writes Stripe's balance transactions of each payout, exactly, once, resuming after a failure.
 * Each scenario pays in its own currency: the fake is one Stripe account and pays out per currency.
 */

const fake = new StripeFake();
let t: TestApp;

beforeAll(async () => {
  await fake.start();
  t = await buildTestApp({ STRIPE_API_BASE_URL: fake.url, SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

const signing = 'whsec_settlements';

async function stripeService(m: string, settlementReporting = true): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Stripe',
      payment_service_definition_id: 'stripe-card',
      settlement_reporting_enabled: settlementReporting,
      fields: [
        { key: 'secret_key', value: fake.secretKey },
        { key: 'webhook_signing_secret', value: signing },
      ],
      accepted_currencies: ['USD', 'EUR', 'GBP', 'CHF'],
      accepted_countries: ['US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const { get, post } = jsonCalls(() => t);
const pay = (m: string, currency: string, amount = 1000, intent = 'authorize') =>
  post(m, '/transactions', { amount, currency, country: 'US', intent, payment_method: card('4242424242424242') }, 201);
const ingest = (m: string, paymentServiceId: string, extra: Record<string, string> = {}) =>
  t.deps.queue
    .enqueue(t.deps.db, 'ingest-settlements', {
      merchant_account_id: m,
      payment_service_id: paymentServiceId,
      ...extra,
    })
    .then(() => t.deps.queue.drain(t.deps));

describe('happy', () => {
  it('a stripe-card capture and refund get no simulated settlement, whatever the delay', async () => {
    const m = await createMerchantAccount(t.deps);
    await stripeService(m);
    const txn = await pay(m, 'EUR');
    await post(m, `/transactions/${txn.id}/capture`, {});
    await post(m, `/transactions/${txn.id}/refunds`, { amount: 300 }, 201);
    await t.deps.queue.drain(t.deps);
    expect((await get(m, `/transactions/${txn.id}/settlements`)).items).toEqual([]);
    expect((await get(m, `/transactions/${txn.id}/refund-settlements`)).items).toEqual([]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled: false, settled_amount: 0 });
    const jobs = await t.deps.db
      .selectFrom('jobs')
      .select('id')
      .where('name', '=', 'settle-transaction')
      .where('job_key', 'like', `%${m}%`)
      .execute();
    expect(jobs).toEqual([]);
  });

  it("ingests a payout: the partial capture, the refund and the dispute with Stripe's amounts and fees, once; the lines add up to the payout", async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await stripeService(m);
    const txn = await pay(m, 'USD', 1000);
    await post(m, `/transactions/${txn.id}/capture`, { amount: 600 });
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 250 }, 201);
    const other = await pay(m, 'USD', 2000, 'capture');
    const dispute = fake.dispute(txn.payment_service_transaction_id, 350);
    const payout = fake.payout('usd')!;

    await ingest(m, ps);
    const settlements = (await get(m, `/transactions/${txn.id}/settlements`)).items;
    // The settlements list shows the refund's (negative) record too, as for the sandbox's.
    expect(settlements).toEqual([
      expect.objectContaining({
        type: 'settlement',
        amount: 600,
        commission: processingFee(600),
        currency: 'USD',
        payment_service_report_id: payout.id,
        interchange: null,
        scheme_fee: null,
      }),
      expect.objectContaining({ amount: -250, commission: 0 }),
    ]);
    const refunds = (await get(m, `/transactions/${txn.id}/refund-settlements`)).items;
    expect(refunds).toEqual([
      expect.objectContaining({
        type: 'refund-settlement',
        refund_id: refund.id,
        amount: -250,
        commission: 0,
        payment_service_report_id: payout.id,
      }),
    ]);
    expect((await get(m, `/transactions/${txn.id}/chargebacks`)).items).toEqual([
      expect.objectContaining({
        type: 'chargeback',
        amount: 350,
        commission: DISPUTE_FEE,
        payment_service_report_id: payout.id,
      }),
    ]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      settled: true,
      settled_amount: 350,
      settled_currency: 'USD',
      disputed: true,
    });
    expect(await get(m, `/transactions/${txn.id}/refunds/${refund.id}`)).toMatchObject({ settled: true });
    expect((await get(m, `/transactions/${other.id}/settlements`)).items).toEqual([
      expect.objectContaining({ amount: 2000, commission: processingFee(2000) }),
    ]);
    const names = (await get(m, `/transactions/${txn.id}/events`)).items.map((e: { name: string }) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'payment-connector-report-transaction-settled',
        'payment-connector-report-chargeback-posted',
      ]),
    );

    // What the merchant's bank receives: every line's net, captures and reversals in, refunds and chargebacks out.
    const rows = await t.deps.db
      .selectFrom('settlements')
      .select(['amount', 'commission'])
      .where('merchant_account_id', '=', m)
      .execute();
    const disputes = await t.deps.db
      .selectFrom('chargebacks')
      .select(['amount', 'commission', 'kind'])
      .where('merchant_account_id', '=', m)
      .execute();
    const net =
      rows.reduce((sum, r) => sum + r.amount - r.commission, 0) +
      disputes.reduce((sum, d) => sum + (d.kind === 'chargeback' ? -d.amount : d.amount) - d.commission, 0);
    expect(net).toBe(payout.amount);

    // Run twice: nothing more.
    const again = await ingestSettlements(t.deps, { merchantAccountId: m, paymentServiceId: ps, since: new Date(0) });
    expect(again).toMatchObject({ written: 0, duplicate: 4, unmatched: 0, done: true });
    expect(
      await t.deps.db.selectFrom('settlements').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(3);
    expect(
      await t.deps.db.selectFrom('chargebacks').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(1);

    // The detailed_settlement report shows Stripe's figures: the payout as report id, the fees, the chargeback.
    const { report, execution } = await runReport(t, m, { spec: { model: 'detailed_settlement', params: {} } });
    expect(execution.status, JSON.stringify(execution)).toBe('succeeded');
    const lines = records((await downloadCsv(t, m, report.id, execution.id)).rows).filter(
      (r) => r.transaction_id === txn.id,
    );
    expect(lines.map((r) => [r.journal_type, r.gross_amount, r.fee_total, r.net_amount, r.report_id])).toEqual([
      ['settlement', '600', String(processingFee(600)), String(600 - processingFee(600)), payout.id],
      ['refund', '-250', '0', '-250', payout.id],
      ['chargeback', '-350', String(DISPUTE_FEE), String(-350 - DISPUTE_FEE), payout.id],
    ]);

    // The dispute is won: the next payout credits it back, and the CLI ingests it.
    fake.closeDispute(String(dispute.id), 'won');
    const second = fake.payout('usd')!;
    const out: string[] = [];
    expect(
      await settlementsCommand(t.deps, ['ingest', '--payment-service', ps, '--merchant-account', m], (line) =>
        out.push(line),
      ),
    ).toBe(0);
    expect(out.join('\n')).toMatch(/lines written: +1\n.*skipped.*: +0\n.*unmatched.*: +0/);
    expect((await get(m, `/transactions/${txn.id}/chargeback-reversals`)).items).toEqual([
      expect.objectContaining({
        type: 'chargeback-reversal',
        amount: 350,
        commission: 0,
        payment_service_report_id: second.id,
      }),
    ]);
  });

  it('resumes after the last page written when the provider fails mid-ingestion', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await stripeService(m);
    // Listed from after the other scenarios' payouts (the fake is one Stripe account): from the next second on.
    const since = new Date(
      (Math.max(0, ...[...fake.state.balance.payouts.values()].map((p) => Number(p.created))) + 1) * 1000,
    );
    while (Date.now() < since.getTime()) await new Promise((resolve) => setTimeout(resolve, 50));
    const first = await pay(m, 'GBP', 1000, 'capture');
    const payout1 = fake.payout('gbp')!;
    const later = await pay(m, 'GBP', 3000, 'capture');
    const payout2 = fake.payout('gbp')!;
    // The second page (payout 2's balance transactions) fails once.
    fake.failNext({ status: 500 }, 1, '/v1/balance_transactions', 1);
    await ingest(m, ps, { since: since.toISOString() });
    const job = await t.deps.db
      .selectFrom('jobs')
      .selectAll()
      .where('name', '=', 'ingest-settlements')
      .where('payload', '@>', JSON.stringify({ payment_service_id: ps }) as never)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({
      attempts: 1,
      status: 'queued',
      last_error: expect.stringContaining('could not be read'),
    });
    const state = await t.deps.db
      .selectFrom('settlement_ingestions')
      .selectAll()
      .where('merchant_account_id', '=', m)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(state.cursor!)).toMatchObject({ payout: payout1.id, finished: true });
    expect(state).toMatchObject({ lines_written: 1, last_error: expect.stringContaining('could not be read') });
    expect((await get(m, `/transactions/${first.id}/settlements`)).items).toHaveLength(1);
    expect((await get(m, `/transactions/${later.id}/settlements`)).items).toHaveLength(0);

    // The retry (or a restarted process) reads payout 2 only.
    const before = fake.requests.length;
    await t.deps.db
      .updateTable('jobs')
      .set({ run_at: new Date(Date.now() - 1000) })
      .where('id', '=', job.id)
      .execute();
    await t.deps.queue.drain(t.deps);
    const read = fake.requests
      .slice(before)
      .filter((r) => r.path === '/v1/balance_transactions')
      .map((r) => r.body.payout);
    expect(read).toEqual([payout2.id]);
    expect((await get(m, `/transactions/${later.id}/settlements`)).items).toEqual([
      expect.objectContaining({ amount: 3000, payment_service_report_id: payout2.id }),
    ]);
    expect(
      await t.deps.db
        .selectFrom('settlement_ingestions')
        .selectAll()
        .where('merchant_account_id', '=', m)
        .executeTakeFirstOrThrow(),
    ).toMatchObject({ lines_written: 2, last_error: null });
  });

  it("Stripe's payout.paid webhook enqueues that payout's ingestion once, which writes its lines", async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await stripeService(m);
    const txn = await pay(m, 'CHF', 1500, 'capture');
    const payout = fake.payout('chf')!;
    const deliver = (eventId: string) => {
      const { body, signature } = StripeFake.signedEvent(signing, {
        id: eventId,
        type: 'payout.paid',
        data: { object: payout },
      });
      return t.app.inject({
        method: 'POST',
        url: `/merchant-accounts/${m}/payment-services/${ps}/webhooks`,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload: body,
      });
    };
    const res = await deliver(`evt_payout_${m}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      { kind: 'settlement_report_available', transaction_id: null, result: 'applied' },
    ]);
    // Stripe sends the event again under another id (a second endpoint): still one job for the payout.
    expect((await deliver(`evt_payout_again_${m}`)).statusCode).toBe(200);
    const jobs = await t.deps.db
      .selectFrom('jobs')
      .select(['payload'])
      .where('name', '=', 'ingest-settlements')
      .where('payload', '@>', JSON.stringify({ payment_service_id: ps }) as never)
      .execute();
    expect(jobs.map((j) => j.payload)).toEqual([{ merchant_account_id: m, payment_service_id: ps, report: payout.id }]);
    await t.deps.queue.drain(t.deps);
    expect((await get(m, `/transactions/${txn.id}/settlements`)).items).toEqual([
      expect.objectContaining({ amount: 1500, commission: processingFee(1500), payment_service_report_id: payout.id }),
    ]);
    // A report run leaves the listing's cursor alone.
    expect(
      await t.deps.db
        .selectFrom('settlement_ingestions')
        .select(['cursor', 'lines_written'])
        .where('merchant_account_id', '=', m)
        .executeTakeFirstOrThrow(),
    ).toEqual({ cursor: null, lines_written: 1 });
  });

  it('the daily schedule enqueues one ingestion a day per payment service with settlement reporting enabled, none for the sandbox nor a disabled one', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await stripeService(m);
    const disabled = await stripeService(m, false);
    const mock = await post(
      m,
      '/payment-services',
      {
        display_name: 'Mock',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'm1' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
      201,
    );
    const at = new Date('2031-03-04T00:10:00Z');
    expect(await scheduleDailyIngestions(t.deps, at)).toBeGreaterThanOrEqual(1);
    expect(await scheduleDailyIngestions(t.deps, new Date('2031-03-04T23:10:00Z'))).toBe(0);
    const keys = (
      await t.deps.db
        .selectFrom('jobs')
        .select('job_key')
        .where('name', '=', 'ingest-settlements')
        .where('job_key', 'like', `%${m}%daily:2031-03-04`)
        .execute()
    ).map((j) => j.job_key);
    expect(keys).toEqual([`ingest-settlements:${m}:${ps}:daily:2031-03-04`]);
    expect(keys.some((k) => k?.includes(mock.id) || k?.includes(disabled))).toBe(false);
  });

  it('a payout.paid webhook of a service without settlement reporting enqueues nothing; the CLI ingests it on request', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await stripeService(m, false);
    const txn = await pay(m, 'CHF', 900, 'capture');
    const payout = fake.payout('chf')!;
    const { body, signature } = StripeFake.signedEvent(signing, {
      id: `evt_payout_off_${m}`,
      type: 'payout.paid',
      data: { object: payout },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: `/merchant-accounts/${m}/payment-services/${ps}/webhooks`,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      { kind: 'settlement_report_available', transaction_id: null, result: 'settlement_reporting_disabled' },
    ]);
    expect(
      await t.deps.db
        .selectFrom('jobs')
        .select('id')
        .where('name', '=', 'ingest-settlements')
        .where('payload', '@>', JSON.stringify({ payment_service_id: ps }) as never)
        .execute(),
    ).toEqual([]);
    expect(
      await settlementsCommand(t.deps, ['ingest', '--payment-service', ps, '--merchant-account', m], () => undefined),
    ).toBe(0);
    expect((await get(m, `/transactions/${txn.id}/settlements`)).items).toEqual([
      expect.objectContaining({ amount: 900, payment_service_report_id: payout.id }),
    ]);
  });
});

describe('errors', () => {
  it('a sandbox payment service has no reports to ingest', async () => {
    const m = await createMerchantAccount(t.deps);
    const mock = await post(
      m,
      '/payment-services',
      {
        display_name: 'Mock',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'm1' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
      201,
    );
    await expect(ingestSettlements(t.deps, { merchantAccountId: m, paymentServiceId: mock.id })).rejects.toThrow(
      /no settlement reports/,
    );
  });

  it("another merchant account's payment service is not found", async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await stripeService(m);
    const other = await createMerchantAccount(t.deps);
    await expect(ingestSettlements(t.deps, { merchantAccountId: other, paymentServiceId: ps })).rejects.toThrow(
      /not found|could not be found/i,
    );
  });
});
