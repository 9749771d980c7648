import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementsCommand } from '../../src/cli/settlements.ts';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../fakes/braintree-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { createPaymentService, jsonCalls } from '../helpers/settlement-flows.ts';

/**
 * Braintree's settlements through our API (docs/settlements.md, "Braintree"): payments captured,
 * settled by the nightly batch, refunded, disbursed and disputed at the local Braintree, then read
 * by the `ingest-settlements` job (its GraphQL searches, a week behind settlement so disbursements
 * are known) and by `svc settlements ingest`; the ledger routes show Braintree's amounts with the
 * disbursement as report, once, and each disbursement's lines add up to what it paid out.
 * Braintree's API reports no per-transaction fee, so every line's commission is 0.
 */
let t: TestApp;
let fake: BraintreeFake;

beforeAll(async () => {
  fake = await startBraintreeFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `braintree-card=${fake.baseUrl}`, SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const fields = Object.entries({
  environment: 'sandbox',
  merchant_id: 'mid',
  ...BRAINTREE_FAKE_KEYS,
  merchant_account_ids: 'USD=default_usd',
}).map(([key, value]) => ({ key, value }));

async function braintreeService(m: string): Promise<string> {
  const payload = {
    display_name: 'Braintree',
    payment_service_definition_id: 'braintree-card',
    settlement_reporting_enabled: true,
    fields,
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
  };
  return createPaymentService(t, m, payload);
}

const { get, post } = jsonCalls(() => t);
const card = { method: 'card', number: '4111111111111111', expiration_date: '03/30', security_code: '123' };
const pay = (m: string, amount: number, intent: 'authorize' | 'capture') =>
  post(m, '/transactions', { amount, currency: 'USD', country: 'US', intent, payment_method: card }, 201);
const DAY = 86_400_000;
/** An instant `days` ago (Braintree's settlements are read a week behind: these are all readable). */
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const dayOf = (iso: string) => iso.slice(0, 10);

describe('happy', () => {
  it("ingests settled captures, a refund and a dispute with Braintree's amounts and disbursements, once; a won dispute is credited back through the CLI", async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await braintreeService(m);
    const txn = await pay(m, 10_000, 'authorize');
    await post(m, `/transactions/${txn.id}/capture`, { amount: 6000 }, 200);
    const other = await pay(m, 2000, 'capture');
    const [sale, otherSale] = [
      txn.payment_service_transaction_id as string,
      other.payment_service_transaction_id as string,
    ];
    fake.settlements.settle(ago(20), [sale, otherSale]);
    const refund = await post(m, `/transactions/${txn.id}/refunds`, { amount: 2400 }, 201);
    fake.settlements.settle(ago(19), [refund.payment_service_refund_id]);
    const paidOut = dayOf(ago(18));
    fake.settlements.disburse(paidOut, { ids: [sale, otherSale, refund.payment_service_refund_id] });
    const disputedOn = dayOf(ago(15));
    const dispute = fake.settlements.openDispute(sale, ago(16), { amount: '35.00', disbursementDate: disputedOn });

    // The job, from a month back (a first run reads from the payment service's creation otherwise).
    await t.deps.queue.enqueue(t.deps.db, 'ingest-settlements', {
      merchant_account_id: m,
      payment_service_id: ps,
      since: ago(30),
    });
    await t.deps.queue.drain(t.deps);
    const report = `disbursement:default_usd:${paidOut}`;
    expect((await get(m, `/transactions/${txn.id}/settlements`)).items).toEqual([
      expect.objectContaining({
        type: 'settlement',
        amount: 6000,
        commission: 0,
        currency: 'USD',
        payment_service_report_id: report,
      }),
      expect.objectContaining({ amount: -2400, commission: 0 }),
    ]);
    expect((await get(m, `/transactions/${txn.id}/refund-settlements`)).items).toEqual([
      expect.objectContaining({
        type: 'refund-settlement',
        refund_id: refund.id,
        amount: -2400,
        commission: 0,
        payment_service_report_id: report,
      }),
    ]);
    expect((await get(m, `/transactions/${txn.id}/chargebacks`)).items).toEqual([
      expect.objectContaining({
        type: 'chargeback',
        amount: 3500,
        commission: 0,
        currency: 'USD',
        payment_service_report_id: `disbursement:default_usd:${disputedOn}`,
      }),
    ]);
    expect((await get(m, `/transactions/${other.id}/settlements`)).items).toEqual([
      expect.objectContaining({ amount: 2000, payment_service_report_id: report }),
    ]);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({ settled: true, disputed: true });

    // Each disbursement's lines add up to what Braintree paid out on it.
    const byReport = async () => {
      const totals = new Map<string, number>();
      const add = (id: string | null, amount: number) => totals.set(id!, (totals.get(id!) ?? 0) + amount);
      for (const r of await t.deps.db
        .selectFrom('settlements')
        .select(['amount', 'commission', 'payment_service_report_id'])
        .where('merchant_account_id', '=', m)
        .execute())
        add(r.payment_service_report_id, r.amount - r.commission);
      for (const d of await t.deps.db
        .selectFrom('chargebacks')
        .select(['amount', 'commission', 'kind', 'payment_service_report_id'])
        .where('merchant_account_id', '=', m)
        .execute())
        add(d.payment_service_report_id, (d.kind === 'chargeback' ? -d.amount : d.amount) - d.commission);
      return Object.fromEntries(totals);
    };
    const fakeTotals = () => Object.fromEntries(fake.settlements.disbursed().map((d) => [d.reportId, d.amount]));
    expect(await byReport()).toEqual(fakeTotals());

    // Run again: nothing more.
    await t.deps.queue.enqueue(t.deps.db, 'ingest-settlements', { merchant_account_id: m, payment_service_id: ps });
    await t.deps.queue.drain(t.deps);
    expect(
      await t.deps.db.selectFrom('settlements').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(3);
    expect(
      await t.deps.db.selectFrom('chargebacks').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(1);

    // Braintree decides the dispute for the merchant; the CLI, from a new start, reads it all again and adds only the reversal.
    const wonOn = dayOf(ago(12));
    fake.settlements.resolveDispute(dispute, 'WON', ago(13), { disbursementDate: wonOn });
    const out: string[] = [];
    expect(
      await settlementsCommand(
        t.deps,
        ['ingest', '--payment-service', ps, '--merchant-account', m, '--since', dayOf(ago(31))],
        (line) => out.push(line),
      ),
    ).toBe(0);
    expect(out.join('\n')).toMatch(/lines written: +1\n.*skipped.*: +4\n.*unmatched.*: +0/);
    expect((await get(m, `/transactions/${txn.id}/chargeback-reversals`)).items).toEqual([
      expect.objectContaining({
        type: 'chargeback-reversal',
        amount: 3500,
        commission: 0,
        payment_service_report_id: `disbursement:default_usd:${wonOn}`,
      }),
    ]);
    expect(await byReport()).toEqual(fakeTotals());
  });
});

describe('errors', () => {
  it('keys Braintree refuses fail the job at once, with the reason on the ingestion state', async () => {
    const m = await createMerchantAccount(t.deps);
    const ps = await braintreeService(m);
    // The keys are rotated at Braintree after the service was made: a report read is refused (401).
    fake.failNext(401);
    await t.deps.queue.enqueue(t.deps.db, 'ingest-settlements', {
      merchant_account_id: m,
      payment_service_id: ps,
      since: ago(30),
    });
    await t.deps.queue.drain(t.deps);
    const job = await t.deps.db
      .selectFrom('jobs')
      .selectAll()
      .where('name', '=', 'ingest-settlements')
      .where('payload', '@>', JSON.stringify({ payment_service_id: ps }) as never)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(
      await t.deps.db
        .selectFrom('settlement_ingestions')
        .select('last_error')
        .where('merchant_account_id', '=', m)
        .executeTakeFirstOrThrow(),
    ).toMatchObject({ last_error: expect.stringContaining('(invalid_request)') });
  });
});
