import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { downloadCsv, records, runReport } from '../../../../test/helpers/reports.ts';
import { card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { settleRefund, settleTransaction } from '../../transactions/settlements/settlements.service.ts';

let t: TestApp;
let m: string;
const txns: Array<{ id: string }> = [];
const BUYER = {
  display_name: 'Ada',
  billing_details: {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email_address: 'ada@example.com',
    phone_number: '+447700900123',
    address: { city: 'London', postal_code: 'SW1A 1AA', country: 'GB' },
  },
};

async function pay(body: Record<string, unknown>) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', payment_method: card(), ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function csvOf(spec: Record<string, unknown>, extra: Record<string, unknown> = {}, scopes?: string[]) {
  const { report, execution } = await runReport(t, m, { spec, ...extra }, scopes);
  expect(execution.status, JSON.stringify(execution)).toBe('succeeded');
  return downloadCsv(t, m, report.id, execution.id);
}

beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: m } = await merchantWithMockCard(t, { accepted_currencies: ['USD', 'EUR', 'JPY'] }));
  txns.push(
    await pay({
      amount: 1050,
      external_identifier: '=HYPERLINK("http://evil.example")',
      buyer: BUYER,
      metadata: { plan: 'gold' },
    }),
  );
  txns.push(
    await pay({ amount: 2000, currency: 'EUR', country: 'DE', intent: 'capture', metadata: { plan: 'silver' } }),
  );
  txns.push(await pay({ amount: 300, currency: 'JPY', payment_method: card('5555555555554444') }));
  // The first was made "yesterday" in Europe/Paris: relative periods must pick it alone.
  const yesterdayNoon = new Date(Date.now() - 24 * 3600_000);
  await sql`UPDATE transactions SET created_at = ${yesterdayNoon} WHERE id = ${txns[0]!.id}`.execute(t.deps.db);
});
afterAll(async () => t.close());

describe('happy', () => {
  it("transactions: every column by default, amounts in minor units and formatted, times in the report's zone", async () => {
    const { rows } = await csvOf(
      { model: 'transactions', params: { sort: ['-amount'] } },
      { schedule_timezone: 'Asia/Kolkata' },
    );
    expect(rows[0]).toContain('amount_formatted');
    expect(rows[0]).toContain('billing_details_email_address');
    const out = records(rows);
    expect(out.map((r) => r.id)).toEqual([txns[1]!.id, txns[0]!.id, txns[2]!.id]);
    expect(out[0]).toMatchObject({
      amount: '2000',
      amount_formatted: '20.00',
      currency: 'EUR',
      status: 'capture_succeeded',
      country: 'DE',
      metadata: '{"plan":"silver"}',
      payment_service_definition_id: 'mock-card',
    });
    expect(out[2]).toMatchObject({
      amount: '300',
      amount_formatted: '300',
      currency: 'JPY',
      payment_method_bin: '55555555',
      payment_method_last4: '4444',
      scheme: 'mastercard',
    });
    expect(out[1]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30$/);
  });

  it('transactions: sort objects apply in list order, and mix with the shorthand', async () => {
    const ids = async (sort: unknown[]) =>
      records((await csvOf({ model: 'transactions', params: { fields: ['id'], sort } })).rows).map((r) => r.id);
    // EUR 2000, JPY 300, USD 1050: by currency first, then amount.
    expect(
      await ids([
        { field: 'currency', order: 'asc' },
        { field: 'amount', order: 'desc' },
      ]),
    ).toEqual([txns[1]!.id, txns[2]!.id, txns[0]!.id]);
    expect(await ids([{ field: 'amount', order: 'desc' }, { field: 'currency' }])).toEqual([
      txns[1]!.id,
      txns[0]!.id,
      txns[2]!.id,
    ]);
    expect(await ids([{ field: 'currency', order: 'desc' }])).toEqual([txns[0]!.id, txns[2]!.id, txns[1]!.id]);
    expect(await ids([{ field: 'amount' }])).toEqual(await ids(['amount']));
  });

  it('transactions: chosen fields in order, filters, and a relative period ("yesterday" in Europe/Paris)', async () => {
    const fields = { fields: ['id', 'amount', 'currency'] };
    const pick = async (filters: Record<string, unknown>) =>
      records(
        (await csvOf({ model: 'transactions', params: { ...fields, filters } }, { schedule_timezone: 'Europe/Paris' }))
          .rows,
      ).map((r) => r.id);
    expect((await csvOf({ model: 'transactions', params: fields })).rows[0]).toEqual([
      'id',
      'amount',
      'amount_formatted',
      'currency',
    ]);
    expect(await pick({ currency: ['EUR', 'JPY'] })).toEqual([txns[1]!.id, txns[2]!.id]);
    expect(await pick({ status: ['capture_succeeded'] })).toEqual([txns[1]!.id]);
    expect(await pick({ metadata: [{ plan: 'gold' }, { plan: 'none' }] })).toEqual([txns[0]!.id]);
    expect(await pick({ amount_gte: 1000, amount_lte: 2000, country: ['DE'] })).toEqual([txns[1]!.id]);
    expect(await pick({ scheme: ['mastercard'] })).toEqual([txns[2]!.id]);
    const yesterday = await pick({ created_at: { start: 'day_start', end: 'day_end' } });
    const today = await pick({ created_at: { start: 'day_end', end: 'now' } });
    // Near midnight in Paris "yesterday noon UTC" may be two days ago there: the two sets still split the rows.
    expect([...yesterday, ...today].sort()).toEqual(
      today.length === 3 ? [...today].sort() : [txns[0]!.id, txns[1]!.id, txns[2]!.id].sort(),
    );
    expect(today).not.toContain(txns[0]!.id);
  });

  it('transactions: a transaction awaiting its connector (no outcome stored) is in the report, pending (decision 0154)', async () => {
    const held = txns[2]!.id;
    const setHeld = (status: string, outcome: string | null) =>
      sql`UPDATE transactions SET status = ${status}, intent_outcome = ${outcome} WHERE id = ${held}`.execute(
        t.deps.db,
      );
    await setHeld('processing', null);
    try {
      const rowsOf = async (filters: Record<string, unknown> = {}) =>
        records(
          (
            await csvOf({
              model: 'transactions',
              params: { fields: ['id', 'status', 'intent_outcome'], filters, sort: ['-amount'] },
            })
          ).rows,
        );
      expect(await rowsOf()).toEqual([
        expect.objectContaining({ id: txns[1]!.id }),
        expect.objectContaining({ id: txns[0]!.id }),
        { id: held, status: 'processing', intent_outcome: 'pending' },
      ]);
      expect((await rowsOf({ status: ['processing'] })).map((r) => r.id)).toEqual([held]);
      expect((await rowsOf({ currency: ['EUR', 'JPY'] })).map((r) => r.id)).toEqual([txns[1]!.id, held]);
    } finally {
      await setHeld('authorization_succeeded', 'succeeded');
    }
  });

  it('detailed_settlement: one row per settlement and refund settlement, gross, fees, net', async () => {
    await t.request({ method: 'POST', url: `/transactions/${txns[0]!.id}/capture`, merchantAccountId: m, payload: {} });
    await settleTransaction(t.deps, m, txns[0]!.id);
    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${txns[0]!.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 50 },
    });
    await settleRefund(t.deps, m, txns[0]!.id, refund.json().id);
    const out = records(
      (
        await csvOf({
          model: 'detailed_settlement',
          params: { filters: { ingested_at: { start: 'day_end', end: null } } },
        })
      ).rows,
    );
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({
      journal_type: 'settlement',
      transaction_id: txns[0]!.id,
      currency: 'USD',
      gross_amount: '1050',
      gross_amount_formatted: '10.50',
      fee_total: '25',
      net_amount: '1025',
      net_amount_formatted: '10.25',
      transaction_external_identifier: '\'=HYPERLINK("http://evil.example")',
    });
    expect(out[1]).toMatchObject({
      journal_type: 'refund',
      refund_id: refund.json().id,
      gross_amount: '-50',
      gross_amount_formatted: '-0.50',
      fee_total: '0',
      net_amount: '-50',
    });
  });

  it('accounts_receivables: captured minus settled per day and currency', async () => {
    const out = records(
      (
        await csvOf({
          model: 'accounts_receivables',
          params: { filters: { timestamp: { start: 'month_start', end: null } } },
        })
      ).rows,
    );
    const usd = out.filter((r) => r.currency === 'USD');
    const eur = out.filter((r) => r.currency === 'EUR');
    expect(eur.at(-1)).toMatchObject({
      captured_amount: '2000',
      settled_amount: '0',
      outstanding_amount: '2000',
      outstanding_amount_formatted: '20.00',
    });
    expect(usd.reduce((sum, r) => sum + Number(r.captured_amount), 0)).toBe(1050);
    expect(usd.at(-1)).toMatchObject({ outstanding_amount: '0' });
  });

  it('transaction_retries: one row per attempt of the transactions that failed over, with the reason', async () => {
    const down = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'down',
        payment_service_definition_id: 'mock-card',
        fields: [
          { key: 'merchant_id', value: 'd' },
          { key: 'simulate_outcome', value: 'unavailable' },
        ],
        accepted_currencies: ['GBP'],
        accepted_countries: ['GB'],
      },
    });
    const up = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'up',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'u' }],
        accepted_currencies: ['GBP'],
        accepted_countries: ['GB'],
      },
    });
    await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/route-transaction/rules',
      merchantAccountId: m,
      payload: {
        conditions: [{ field: 'currency', operator: 'equals', value: 'GBP' }],
        outcome: { payment_service_ids: [down.json().id, up.json().id] },
      },
    });
    const failedOver = await pay({ currency: 'GBP', country: 'GB', amount: 700 });
    const out = records(
      (
        await csvOf({
          model: 'transaction_retries',
          params: { filters: { created_at: { start: 'day_start', end: null } } },
        })
      ).rows,
    );
    expect(out).toEqual([
      expect.objectContaining({
        transaction_id: failedOver.id,
        attempt_number: '1',
        attempts: '2',
        payment_service_id: down.json().id,
        payment_service_display_name: 'down',
        outcome: 'failed',
        error_code: 'service_network_error',
        retry_reason: 'service_unreachable',
        next_payment_service_id: up.json().id,
        amount_formatted: '7.00',
      }),
      expect.objectContaining({
        transaction_id: failedOver.id,
        attempt_number: '2',
        payment_service_id: up.json().id,
        outcome: 'succeeded',
        retry_reason: '',
      }),
    ]);
  });
});

describe('security', () => {
  const luhn = (digits: string) =>
    [...digits]
      .reverse()
      .reduce(
        (sum, ch, i) => sum + (i % 2 ? ((Number(ch) * 2) % 10) + Math.floor((Number(ch) * 2) / 10) : Number(ch)),
        0,
      ) %
      10 ===
    0;

  it("holds no card number or security code: a PAN scan of every model's file finds nothing", async () => {
    for (const model of ['transactions', 'transaction_retries', 'detailed_settlement', 'accounts_receivables']) {
      const { text } = await csvOf({ model, params: {} });
      const pans = (text.match(/\d{13,19}/g) ?? []).filter(luhn);
      expect(pans, model).toEqual([]);
      expect(text).not.toContain('4111111111111111');
      expect(text).not.toMatch(/security_code|cvv/i);
    }
  });

  it('masks personal data unless the creating credential could read it', async () => {
    const fields = [
      'id',
      'billing_details_first_name',
      'billing_details_email_address',
      'billing_details_phone_number',
      'billing_details_address_postal_code',
    ];
    const masked = records(
      (
        await csvOf({ model: 'transactions', params: { fields, filters: { metadata: [{ plan: 'gold' }] } } }, {}, [
          'reports.read',
          'reports.write',
        ])
      ).rows,
    );
    expect(masked[0]).toMatchObject({
      billing_details_first_name: 'A***',
      billing_details_email_address: 'a***@e***.com',
      billing_details_phone_number: "'+***23",
      billing_details_address_postal_code: 'SW***',
    });
    const clear = records(
      (
        await csvOf({ model: 'transactions', params: { fields, filters: { metadata: [{ plan: 'gold' }] } } }, {}, [
          'reports.read',
          'reports.write',
          'buyers.billing-details.read',
        ])
      ).rows,
    );
    expect(clear[0]).toMatchObject({
      billing_details_first_name: 'Ada',
      billing_details_email_address: 'ada@example.com',
      billing_details_phone_number: "'+447700900123",
    });
  });

  it("never puts another merchant account's rows in a file", async () => {
    const other = await createMerchantAccount(t.deps);
    for (const model of ['transactions', 'transaction_retries', 'detailed_settlement', 'accounts_receivables']) {
      const { report, execution } = await runReport(t, other, { spec: { model, params: {} } });
      const { rows } = await downloadCsv(t, other, report.id, execution.id);
      expect(rows.length, model).toBe(1);
    }
  });
});
