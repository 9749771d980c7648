import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ADYEN_FAKE_REPORT_KEY,
  ADYEN_FAKE_REPORT_PASSWORD,
  ADYEN_FAKE_REPORT_USER,
} from '../../../test/fakes/adyen-fake-reports.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../../../test/fakes/adyen-fake.ts';
import type { AuthorizeRequest, SettlementFetchRequest, SettlementLine } from '../connector.ts';
import { providerDownload } from '../provider-download.ts';
import { AdyenCardConnector } from './adyen.connector.ts';
import { ADYEN_REPORT_HOSTS, ADYEN_REPORTS_OVERRIDE_KEY, AdyenReports } from './adyen.reports.ts';
import { DIRECTION } from './adyen.settlement-report.ts';

const HMAC = 'AB'.repeat(32);
const credentials = {
  api_key: ADYEN_FAKE_KEY,
  merchant_account: ADYEN_FAKE_MERCHANT,
  hmac_key: HMAC,
  report_api_key: ADYEN_FAKE_REPORT_KEY,
};
let fake: AdyenFake;
let adyen: AdyenCardConnector;

beforeAll(async () => {
  fake = await startAdyenFake();
  adyen = new AdyenCardConnector({
    baseUrls: { 'adyen-card': fake.baseUrl, [ADYEN_REPORTS_OVERRIDE_KEY]: fake.reportBaseUrl },
  });
});
afterAll(async () => fake.close());
// Each test starts with the batch closed: its report holds only what the test books.
beforeEach(() => void fake.closeBatch());

const authorization = (overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  idempotencyKey: randomUUID(),
  credentials,
  options: null,
  reference: 'order, "7"',
  amount: 1000,
  currency: 'EUR',
  country: 'NL',
  intent: 'authorize',
  instrument: {
    kind: 'card',
    number: '4111111145551142',
    expirationDate: '03/30',
    securityCode: '737',
    scheme: 'visa',
  },
  merchantInitiated: false,
  isSubsequentPayment: false,
  paymentSource: 'ecommerce',
  threeDSecure: null,
  approvalBaseUrl: 'https://svc.example',
  merchantAccountId: 'm1',
  redirectUrl: null,
  ...overrides,
});
const hint = { method: 'card', bin: '411111', last4: '1142', authorizedAmount: 1000 };
const fetchOf = (request: Partial<SettlementFetchRequest>): SettlementFetchRequest => ({
  credentials,
  since: new Date(0),
  cursor: null,
  report: null,
  ...request,
});
const webhook = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  rawBody: Buffer.from(JSON.stringify(body)),
  url: 'https://svc.example/webhooks',
});
const netByCurrency = (lines: SettlementLine[]) => {
  const net: Record<string, number> = {};
  for (const line of lines)
    net[line.currency] = (net[line.currency] ?? 0) + DIRECTION[line.kind] * line.amount - line.commission;
  return net;
};

/** A payment captured in part and refunded in part, one captured at once in JPY, and a chargeback reversed on the first. */
async function bookSome() {
  const paid = await adyen.authorize(authorization());
  const base = {
    credentials,
    options: null,
    payment: hint,
    providerTransactionId: paid.providerTransactionId!,
    reference: 'cap-1',
    currency: 'EUR',
  };
  const capture = await adyen.capture({ ...base, idempotencyKey: randomUUID(), amount: 1000, final: true });
  const refund = await adyen.refund({
    ...base,
    reference: 'ref-1',
    idempotencyKey: randomUUID(),
    amount: 400,
    reason: null,
  });
  const yen = await adyen.authorize(authorization({ intent: 'capture', amount: 5000, currency: 'JPY' }));
  fake.dispute(paid.providerTransactionId!, 'Chargeback');
  fake.dispute(paid.providerTransactionId!, 'ChargebackReversed');
  return { paid, capture, refund, yen };
}

describe('happy', () => {
  it('downloads the report its REPORT_AVAILABLE notification names, as the report user, with every capture, refund and dispute and its fees', async () => {
    const { paid, capture, refund, yen } = await bookSome();
    const report = fake.closeBatch();
    const outcome = adyen.parseWebhook(credentials, webhook(fake.reportAvailable(report.fileName, HMAC)));
    expect(outcome).toMatchObject({
      status: 'accepted',
      events: [
        {
          eventId: `adyen:REPORT_AVAILABLE:${report.fileName}:true`,
          actions: [{ kind: 'settlement_report_available', providerTransactionId: '' }],
        },
      ],
    });
    const url = outcome.status === 'accepted' ? outcome.events[0]!.actions[0]!.providerReferenceId! : '';
    expect(url).toBe(`${fake.url}/reports/download/MerchantAccount/${ADYEN_FAKE_MERCHANT}/${report.fileName}`);

    const page = await adyen.settlements(fetchOf({ report: url }));
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/reports/download/MerchantAccount/${ADYEN_FAKE_MERCHANT}/${report.fileName}`,
      headers: { 'x-api-key': ADYEN_FAKE_REPORT_KEY },
    });
    expect(page).toMatchObject({ done: true, cursor: report.fileName });
    const common = {
      reportId: report.fileName,
      reportFileIds: [report.fileName],
      merchantReference: 'order, "7"',
      exchangeRate: null,
    };
    // The fake's pricing (adyen-fake-reports.ts): capture markup 0.6 % + 0.10, scheme fees 0.05 %, interchange 0.3 %; refund 0.10; chargeback 15.00.
    expect(page.lines).toEqual([
      {
        ...common,
        kind: 'capture',
        reportLineId: `${report.fileName}:Settled:${paid.providerTransactionId}:${capture.providerCaptureId}`,
        providerTransactionId: paid.providerTransactionId,
        providerRefundId: null,
        currency: 'EUR',
        amount: 1000,
        commission: 16 + 1 + 3,
        markup: 16,
        schemeFee: 1,
        interchange: 3,
        postedAt: expect.any(Date),
      },
      {
        ...common,
        kind: 'refund',
        reportLineId: `${report.fileName}:Refunded:${paid.providerTransactionId}:${refund.providerRefundId}`,
        providerTransactionId: paid.providerTransactionId,
        providerRefundId: refund.providerRefundId,
        currency: 'EUR',
        amount: 400,
        commission: 10,
        markup: 10,
        schemeFee: null,
        interchange: null,
        postedAt: expect.any(Date),
      },
      {
        ...common,
        kind: 'capture',
        reportLineId: expect.stringContaining(`:Settled:${yen.providerTransactionId}:`),
        providerTransactionId: yen.providerTransactionId,
        providerRefundId: null,
        currency: 'JPY',
        amount: 5000,
        commission: 30 + 3 + 15,
        markup: 30,
        schemeFee: 3,
        interchange: 15,
        postedAt: expect.any(Date),
      },
      {
        ...common,
        kind: 'chargeback',
        reportLineId: expect.stringContaining(`:Chargeback:${paid.providerTransactionId}:DSP`),
        providerTransactionId: paid.providerTransactionId,
        providerRefundId: null,
        currency: 'EUR',
        amount: 1000,
        commission: 1500,
        markup: null,
        schemeFee: null,
        interchange: null,
        postedAt: expect.any(Date),
      },
      {
        ...common,
        kind: 'chargeback-reversal',
        reportLineId: expect.stringContaining(`:ChargebackReversed:${paid.providerTransactionId}:DSP`),
        providerTransactionId: paid.providerTransactionId,
        providerRefundId: null,
        currency: 'EUR',
        amount: 1000,
        commission: 0,
        markup: null,
        schemeFee: null,
        interchange: null,
        postedAt: expect.any(Date),
      },
    ]);
    // The lines add up to the report: gross less fees is the Net Credit − Net Debit the fake wrote, per currency.
    expect(netByCurrency(page.lines)).toEqual(report.net);
    expect(Math.abs(page.lines[0]!.postedAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('gives the same lines and ids when the same report is downloaded twice, with the file name or its URL', async () => {
    await bookSome();
    const report = fake.closeBatch();
    const first = await adyen.settlements(fetchOf({ report: report.fileName }));
    const second = await adyen.settlements(
      fetchOf({ report: `${fake.reportBaseUrl}/MerchantAccount/${ADYEN_FAKE_MERCHANT}/${report.fileName}` }),
    );
    expect(second.lines).toEqual(first.lines);
    expect(new Set(first.lines.map((line) => line.reportLineId)).size).toBe(5);
  });

  it("authenticates with the report user's basic authentication when it has no report API key", async () => {
    await adyen.authorize(authorization({ intent: 'capture' }));
    const report = fake.closeBatch();
    const { report_api_key: _unused, ...rest } = credentials;
    const page = await adyen.settlements(
      fetchOf({
        credentials: { ...rest, report_username: ADYEN_FAKE_REPORT_USER, report_password: ADYEN_FAKE_REPORT_PASSWORD },
        report: report.fileName,
      }),
    );
    expect(page.lines).toHaveLength(1);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${ADYEN_FAKE_REPORT_USER}:${ADYEN_FAKE_REPORT_PASSWORD}`).toString('base64')}`,
    );
  });

  it('reads the batches in order on the daily run, one report per page, and stops where Adyen has none yet', async () => {
    const start = fake.closeBatch().batch;
    await adyen.authorize(authorization({ intent: 'capture', amount: 1100 }));
    const one = fake.closeBatch();
    await adyen.authorize(authorization({ intent: 'capture', amount: 1200 }));
    const two = fake.closeBatch();
    const first = { ...credentials, settlement_first_batch: String(start + 1) };
    const page1 = await adyen.settlements(fetchOf({ credentials: first }));
    expect(page1).toMatchObject({ cursor: one.fileName, done: false, lines: [{ amount: 1100 }] });
    const page2 = await adyen.settlements(fetchOf({ credentials: first, cursor: page1.cursor }));
    expect(page2).toMatchObject({ cursor: two.fileName, done: false, lines: [{ amount: 1200 }] });
    const seen = fake.requests.length;
    const page3 = await adyen.settlements(fetchOf({ credentials: first, cursor: page2.cursor }));
    expect(page3).toEqual({ lines: [], cursor: two.fileName, done: true });
    // The next three batch numbers were asked (a batch closed without a report is stepped over), no more.
    expect(fake.requests.slice(seen).map((r) => r.path.split('/').at(-1))).toEqual(
      [two.batch + 1, two.batch + 2, two.batch + 3].map((n) => `settlement_detail_report_batch_${n}.csv`),
    );
    // Lines posted before `since` are not returned; a notified report never moves the cursor back.
    expect(
      await adyen.settlements(fetchOf({ credentials: first, since: new Date(Date.now() + 3_600_000) })),
    ).toMatchObject({ lines: [], cursor: one.fileName, done: false });
    expect(await adyen.settlements(fetchOf({ report: one.fileName, cursor: two.fileName }))).toMatchObject({
      cursor: two.fileName,
      done: true,
    });
  });
});

describe('errors', () => {
  it('reports wrong or missing report credentials, a report not there yet, and a report of another kind', async () => {
    const report = fake.closeBatch();
    await expect(
      adyen.settlements(fetchOf({ credentials: { ...credentials, report_api_key: 'wrong' }, report: report.fileName })),
    ).rejects.toMatchObject({ kind: 'invalid_request', message: expect.stringContaining('401') });
    const { report_api_key: _unused, ...none } = credentials;
    await expect(adyen.settlements(fetchOf({ credentials: none, report: report.fileName }))).rejects.toMatchObject({
      kind: 'invalid_request',
      message: expect.stringContaining('report_api_key'),
    });
    // The payments API key is no report user's: never sent to the report host.
    expect(
      fake.requests
        .filter((r) => r.path.startsWith('/reports/'))
        .every((r) => r.headers['x-api-key'] !== ADYEN_FAKE_KEY),
    ).toBe(true);
    await expect(
      adyen.settlements(fetchOf({ report: 'settlement_detail_report_batch_999999.csv' })),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(
      adyen.settlements(fetchOf({ report: 'received_payments_report_2024_01_01.csv' })),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    await expect(adyen.settlements(fetchOf({ cursor: 'not-a-report' }))).rejects.toMatchObject({
      kind: 'invalid_request',
    });
  });

  it('checks the report credentials it is given', async () => {
    expect(await adyen.verifyCredentials({ ...credentials, report_username: 'report@Company.X' })).toMatchObject({
      ok: false,
      problems: [{ key: 'report_password' }],
    });
    expect(await adyen.verifyCredentials({ ...credentials, settlement_first_batch: '1.5' })).toMatchObject({
      ok: false,
      problems: [{ key: 'settlement_first_batch' }],
    });
  });
});

describe('security', () => {
  it("fetches a notified report only from this merchant account's report folder, before any connection", async () => {
    const report = fake.closeBatch();
    const seen = fake.requests.length;
    const folder = `${fake.reportBaseUrl}/MerchantAccount/${ADYEN_FAKE_MERCHANT}/`;
    for (const url of [
      `https://attacker.example/reports/download/MerchantAccount/${ADYEN_FAKE_MERCHANT}/${report.fileName}`,
      `${fake.reportBaseUrl}/MerchantAccount/OtherMerchant/${report.fileName}`,
      `${folder}../OtherMerchant/${report.fileName}`,
      `${folder}${report.fileName}?x=1`,
      `${folder}sub/${report.fileName}`,
      `http://169.254.169.254/latest/meta-data/${report.fileName}`,
    ]) {
      await expect(adyen.settlements(fetchOf({ report: url })), url).rejects.toMatchObject({ kind: 'invalid_request' });
    }
    expect(fake.requests.length).toBe(seen);
  });

  it("without the sandbox override, accepts only Adyen's report host of the credentials' environment, over https", async () => {
    const reports = new AdyenReports({});
    const name = 'settlement_detail_report_batch_7.csv';
    const test = { merchant_account: 'TestMerchant' };
    const live = { merchant_account: 'TestMerchant', live_url_prefix: '1797a841fbb37ca7-AdyenDemo' };
    expect(
      reports.fileNameOf(test, `https://ca-test.adyen.com/reports/download/MerchantAccount/TestMerchant/${name}`),
    ).toBe(name);
    expect(
      reports.fileNameOf(live, `https://ca-live.adyen.com/reports/download/MerchantAccount/TestMerchant/${name}`),
    ).toBe(name);
    expect(() =>
      reports.fileNameOf(test, `https://ca-live.adyen.com/reports/download/MerchantAccount/TestMerchant/${name}`),
    ).toThrow(/not in this merchant account's report folder/);
    expect(() =>
      reports.fileNameOf(live, `http://ca-live.adyen.com/reports/download/MerchantAccount/TestMerchant/${name}`),
    ).toThrow(/not in this merchant account's report folder/);
    expect(() =>
      reports.fileNameOf(
        test,
        `https://ca-test.adyen.com.attacker.example/reports/download/MerchantAccount/TestMerchant/${name}`,
      ),
    ).toThrow();
    const endpoint = { baseUrl: 'https://attacker.example', allowedHosts: ADYEN_REPORT_HOSTS, overridden: false };
    await expect(
      providerDownload(endpoint, 'Adyen', `/reports/download/MerchantAccount/TestMerchant/${name}`, {}),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    await expect(
      providerDownload({ ...endpoint, baseUrl: 'http://ca-test.adyen.com' }, 'Adyen', '/x', {}),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
  });
});
