import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleDailyIngestions } from '../../src/modules/settlements-ingestion/settlement-ingestion.service.ts';
import { ADYEN_FAKE_REPORT_KEY } from '../fakes/adyen-fake-reports.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { createPaymentService, jsonCalls } from '../helpers/settlement-flows.ts';

/**
 * Adyen's settlements through our API (docs/settlements.md, "Adyen"): payments captured, refunded
 * and charged back at the local Adyen, its payout batch closed into a Settlement details report,
 * the report ingested by the `ingest-settlements` job, announced by a signed REPORT_AVAILABLE
 * notification POSTed to the payment service's webhook route, and read by the daily run (by batch
 * number); the ledger routes then show Adyen's amounts and Interchange++ fees exactly, once.
 * The fake is one Adyen merchant account, so each scenario reads its own batches.
 */
let t: TestApp;
let fake: AdyenFake;
const HMAC = 'CD'.repeat(32);

beforeAll(async () => {
  fake = await startAdyenFake();
  t = await buildTestApp({
    CONNECTOR_BASE_URLS: `adyen-card=${fake.baseUrl},adyen-card-reports=${fake.reportBaseUrl}`,
    SETTLEMENT_DELAY_SECONDS: '0',
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const fields = (overrides: Record<string, string>) =>
  Object.entries({
    api_key: ADYEN_FAKE_KEY,
    merchant_account: ADYEN_FAKE_MERCHANT,
    hmac_key: HMAC,
    report_api_key: ADYEN_FAKE_REPORT_KEY,
    ...overrides,
  }).map(([key, value]) => ({ key, value }));

async function adyenService(m: string, overrides: Record<string, string> = {}): Promise<string> {
  const payload = {
    display_name: 'Adyen',
    payment_service_definition_id: 'adyen-card',
    settlement_reporting_enabled: true,
    fields: fields(overrides),
    accepted_currencies: ['EUR'],
    accepted_countries: ['NL'],
  };
  return createPaymentService(t, m, payload);
}

const { get, post } = jsonCalls(() => t);
const card = { method: 'card', number: '4111111145551142', expiration_date: '03/30', security_code: '737' };
const pay = (m: string, amount: number, intent: 'authorize' | 'capture') =>
  post(m, '/transactions', { amount, currency: 'EUR', country: 'NL', intent, payment_method: card }, 201);
const notify = (m: string, ps: string, body: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${ps}/webhooks`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
/** Adyen's signed notification of a modification (its HMAC over the item's fields, as Adyen signs them). */
function modificationNotification(
  eventCode: string,
  pspReference: string,
  originalReference: string,
  value: number,
): Record<string, unknown> {
  const item = {
    pspReference,
    originalReference,
    merchantAccountCode: ADYEN_FAKE_MERCHANT,
    merchantReference: 'ref',
    amount: { value, currency: 'EUR' },
    eventCode,
    success: 'true',
  };
  const text = [pspReference, originalReference, ADYEN_FAKE_MERCHANT, 'ref', value, 'EUR', eventCode, 'true'].join(':');
  return {
    live: 'false',
    notificationItems: [
      {
        NotificationRequestItem: {
          ...item,
          additionalData: {
            hmacSignature: createHmac('sha256', Buffer.from(HMAC, 'hex')).update(text).digest('base64'),
          },
        },
      },
    ],
  };
}
const ingestJobs = (ps: string) =>
  t.deps.db
    .selectFrom('jobs')
    .selectAll()
    .where('name', '=', 'ingest-settlements')
    .where('payload', '@>', JSON.stringify({ payment_service_id: ps }) as never)
    .orderBy('created_at')
    .execute();

/** The fake's pricing (adyen-fake-reports.ts) for EUR: Interchange++ on a capture, 0.10 on a refund, 15.00 per chargeback. */
const captureFees = (value: number) => ({
  markup: Math.round(value * 0.006) + 10,
  scheme_fee: Math.round(value * 0.0005),
  interchange: Math.round(value * 0.003),
});
const total = (fees: { markup: number; scheme_fee: number; interchange: number }) =>
  fees.markup + fees.scheme_fee + fees.interchange;

describe('happy', () => {
  it("a REPORT_AVAILABLE notification ingests the batch's capture, refund and chargeback with Adyen's fees, once; the daily run reads the next batch's reversal; the lines add up to the report", async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await adyenService(m);
    const txn = await pay(m, 10_000, 'authorize');
    await post(m, `/transactions/${txn.id}/capture`, { amount: 6000 }, 200);
    // Adyen confirms the capture by its CAPTURE notification (the capture is pending until then).
    const capture = fake.bookings.at(-1)!;
    expect(
      (
        await notify(
          m,
          ps,
          modificationNotification('CAPTURE', capture.modificationPsp, txn.payment_service_transaction_id, 6000),
        )
      ).statusCode,
    ).toBe(200);
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 2400 }, 201);
    const other = await pay(m, 2000, 'capture');
    fake.dispute(txn.payment_service_transaction_id, 'Chargeback', 3500);
    const report = fake.closeBatch();

    // Adyen announces the report, signed; a redelivery of the notification adds no second job.
    const notification = fake.reportAvailable(report.fileName, HMAC);
    const res = await notify(m, ps, notification);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      expect.objectContaining({ kind: 'settlement_report_available', result: 'applied' }),
    ]);
    expect((await notify(m, ps, notification)).statusCode).toBe(200);
    expect(await ingestJobs(ps)).toHaveLength(1);
    await t.deps.queue.drain(t.deps);
    expect((await ingestJobs(ps)).map((j) => j.status)).toEqual(['succeeded']);

    const fees = captureFees(6000);
    expect((await get(m, `/transactions/${txn.id}/settlements`)).items).toEqual([
      expect.objectContaining({
        type: 'settlement',
        amount: 6000,
        currency: 'EUR',
        commission: total(fees),
        ...fees,
        payment_service_report_id: report.fileName,
      }),
      expect.objectContaining({ amount: -2400, commission: 10 }),
    ]);
    expect((await get(m, `/transactions/${txn.id}/refund-settlements`)).items).toEqual([
      expect.objectContaining({
        type: 'refund-settlement',
        refund_id: refund.id,
        amount: -2400,
        commission: 10,
        markup: 10,
        payment_service_report_id: report.fileName,
      }),
    ]);
    expect((await get(m, `/transactions/${txn.id}/chargebacks`)).items).toEqual([
      expect.objectContaining({
        type: 'chargeback',
        amount: 3500,
        commission: 1500,
        currency: 'EUR',
        payment_service_report_id: report.fileName,
      }),
    ]);
    expect((await get(m, `/transactions/${other.id}/settlements`)).items).toEqual([
      expect.objectContaining({ amount: 2000, commission: total(captureFees(2000)), ...captureFees(2000) }),
    ]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled: true, disputed: true });

    // Adyen's arithmetic: our lines' nets and fees are the report's, to the cent.
    const net = async () => {
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
      return {
        net:
          rows.reduce((sum, r) => sum + r.amount - r.commission, 0) +
          disputes.reduce((sum, d) => sum + (d.kind === 'chargeback' ? -d.amount : d.amount) - d.commission, 0),
        fees: [...rows, ...disputes].reduce((sum, r) => sum + r.commission, 0),
      };
    };
    expect(await net()).toEqual({ net: report.net.EUR, fees: report.fees.EUR });

    // The dispute is reversed in the next batch, which the daily run finds by its batch number;
    // it reads the first batch again on its way (its cursor starts at batch 1): nothing is added twice.
    fake.dispute(txn.payment_service_transaction_id, 'ChargebackReversed', 3500);
    const next = fake.closeBatch();
    expect(await scheduleDailyIngestions(t.deps, new Date())).toBe(1);
    await t.deps.queue.drain(t.deps);
    // What the run left (its last error, its jobs), to read when the next line fails.
    const state = await t.deps.db
      .selectFrom('settlement_ingestions')
      .selectAll()
      .where('merchant_account_id', '=', m)
      .executeTakeFirstOrThrow();
    const jobs = await t.deps.db.selectFrom('jobs').selectAll().where('name', '=', 'ingest-settlements').execute();
    expect(
      (await get(m, `/transactions/${txn.id}/chargeback-reversals`)).items,
      JSON.stringify({ state, jobs }),
    ).toEqual([
      expect.objectContaining({
        type: 'chargeback-reversal',
        amount: 3500,
        commission: 0,
        payment_service_report_id: next.fileName,
      }),
    ]);
    expect(state).toMatchObject({ cursor: next.fileName, lines_written: 5, lines_duplicate: 4, last_error: null });
    expect(await net()).toEqual({ net: report.net.EUR! + next.net.EUR!, fees: report.fees.EUR! + next.fees.EUR! });
    expect(
      await t.deps.db.selectFrom('settlements').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(3);
    expect(
      await t.deps.db.selectFrom('chargebacks').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(2);
  });
});

describe('errors', () => {
  it('a report Adyen refuses to the report credentials fails the job at once with the reason on the ingestion state', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await adyenService(m, { report_api_key: 'AQE_wrong_key' });
    await pay(m, 1200, 'capture');
    const report = fake.closeBatch();
    expect((await notify(m, ps, fake.reportAvailable(report.fileName, HMAC))).statusCode).toBe(200);
    await t.deps.queue.drain(t.deps);
    const [job] = await ingestJobs(ps);
    expect(job).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: expect.stringContaining('refused the report credentials'),
    });
    const state = await t.deps.db
      .selectFrom('settlement_ingestions')
      .selectAll()
      .where('merchant_account_id', '=', m)
      .executeTakeFirstOrThrow();
    expect(state).toMatchObject({ lines_written: 0, last_error: expect.stringContaining('(invalid_request)') });
  });

  it('a report Adyen does not serve yet is retried later with backoff, not failed', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await adyenService(m);
    const missing = 'settlement_detail_report_batch_999.csv';
    expect((await notify(m, ps, fake.reportAvailable(missing, HMAC))).statusCode).toBe(200);
    const before = Date.now();
    await t.deps.queue.drain(t.deps);
    const [job] = await ingestJobs(ps);
    expect(job).toMatchObject({ status: 'queued', attempts: 1, last_error: expect.stringContaining('(unavailable)') });
    expect(new Date(job!.run_at).getTime() - before).toBeGreaterThanOrEqual(30_000);
  });

  it('a notification for a service without settlement reporting is recorded, and nothing is enqueued', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await adyenService(m);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/payment-services/${ps}`,
          merchantAccountId: m,
          payload: { settlement_reporting_enabled: false },
        })
      ).statusCode,
    ).toBe(200);
    const res = await notify(m, ps, fake.reportAvailable('settlement_detail_report_batch_998.csv', HMAC));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([
      expect.objectContaining({ kind: 'settlement_report_available', result: 'settlement_reporting_disabled' }),
    ]);
    expect(await ingestJobs(ps)).toEqual([]);
  });
});
