import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GOCARDLESS_FAKE_TOKEN,
  GOCARDLESS_FAKE_WEBHOOK_SECRET,
  startGoCardlessFake,
  type GoCardlessFake,
} from '../fakes/gocardless-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';

/**
 * The whole GoCardless flow through our API with a payment service of the `gocardless-gocardless`
 * definition, against the local GoCardless fake: the service (the access token checked at
 * GoCardless), a mandate set up on GoCardless's page, a collection pending for days and confirmed
 * by a signed webhook, an asynchronous refund, an authorization voided by cancelling its mandate,
 * a payer who leaves the page; forged webhooks refused; the secrets nowhere we answer, keep or log.
 */
let t: TestApp;
let fake: GoCardlessFake;
const bodies: string[] = [];

beforeAll(async () => {
  fake = await startGoCardlessFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `gocardless-gocardless=${fake.url}` });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function createService(m: string, token = GOCARDLESS_FAKE_TOKEN) {
  const payload = {
    display_name: 'GoCardless',
    payment_service_definition_id: 'gocardless-gocardless',
    fields: [
      { key: 'access_token', value: token },
      { key: 'webhook_secret', value: GOCARDLESS_FAKE_WEBHOOK_SECRET },
    ],
    accepted_currencies: ['GBP'],
    accepted_countries: ['GB'],
  };
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  bodies.push(res.body);
  return res;
}

async function merchant() {
  const m = await createMerchantAccount(t.deps);
  const res = await createService(m);
  expect(res.statusCode, res.body).toBe(201);
  return { m, service: res.json() };
}

async function call(m: string, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

async function pay(m: string, body: Record<string, unknown> = {}) {
  const res = await call(m, 'POST', '/transactions', {
    amount: 1000,
    currency: 'GBP',
    country: 'GB',
    intent: 'capture',
    payment_method: { method: 'gocardless', country: 'GB', currency: 'GBP', redirect_url: 'https://shop.example/done' },
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The payer on GoCardless's page (completes it, or leaves), then back at our return address. */
async function payer(txn: { payment_method: { approval_url: string } }, decision: 'complete' | 'exit' = 'complete') {
  const page = await fetch(`${txn.payment_method.approval_url}?decision=${decision}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get('location')!);
  expect(back.pathname).toMatch(/^\/connector-returns\//);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

const get = async (m: string, id: string) => (await call(m, 'GET', `/transactions/${id}`)).json();
const deliver = (m: string, service: string, request: ReturnType<GoCardlessFake['advance']>) =>
  t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${service}/webhooks`,
    headers: request.headers as Record<string, string>,
    payload: request.rawBody,
  });

describe('happy', () => {
  it('creates the payment service once GoCardless accepted the access token, and offers gocardless in GBP only', async () => {
    const { m, service } = await merchant();
    expect(service).toMatchObject({ payment_service_definition_id: 'gocardless-gocardless', method: 'gocardless' });
    expect(fake.requests.some((r) => r.path.startsWith('/creditors'))).toBe(true);
    const options = async (currency: string) =>
      (await call(m, 'POST', '/payment-options', { currency, country: 'GB', amount: 1000 })).json().items;
    expect(await options('GBP')).toContainEqual(expect.objectContaining({ method: 'gocardless', mode: 'redirect' }));
    expect((await options('EUR')).map((o: { method: string }) => o.method)).not.toContain('gocardless');
  });

  it("sets up the mandate on GoCardless's page, collects, and lands the confirmation days later by a signed webhook, once", async () => {
    const { m, service } = await merchant();
    const txn = await pay(m, { connection_options: { 'gocardless-gocardless': { purpose_code: 'retail' } } });
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/pay/`) },
    });
    const billing = fake.resources.get(txn.payment_service_transaction_id)!;
    expect(billing).toMatchObject({ mandate_request: { currency: 'GBP' }, purpose_code: 'retail' });
    const returned = await payer(txn);
    expect(returned.statusCode, returned.body).toBe(200);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_pending' });
    const [payment] = fake.paymentsOf(txn.payment_service_transaction_id);
    expect(payment).toMatchObject({ amount: 1000, currency: 'GBP', status: 'pending_submission' });
    const create = fake.requests.find((r) => r.method === 'POST' && r.path === '/payments')!;
    expect(create.headers['idempotency-key']).toEqual(expect.any(String));
    expect(create.headers['gocardless-version']).toBe('2015-07-06');

    // Submitted to the scheme: nothing changes yet.
    expect((await deliver(m, service.id, fake.advance(payment!.id, 'submitted'))).statusCode).toBeLessThan(300);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_pending' });
    const confirmed = fake.advance(payment!.id, 'confirmed');
    // The same delivery altered after signing: 401, nothing written.
    const forged = await deliver(m, service.id, {
      ...confirmed,
      rawBody: Buffer.from(confirmed.rawBody.toString('utf8').replace('"confirmed"', '"paid_out"')),
    });
    expect(forged.statusCode).toBe(401);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_pending' });
    const first = await deliver(m, service.id, confirmed);
    expect(first.statusCode, first.body).toBeLessThan(300);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    const replay = await deliver(m, service.id, confirmed);
    expect(replay.body).toContain('"duplicate":true');

    // A partial refund, asynchronous too: processing, then paid by webhook.
    const refund = await call(m, 'POST', `/transactions/${txn.id}/refunds`, { amount: 400 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 400 });
    const made = [...fake.resources.values()].find((r) => r.id.startsWith('RF'))!;
    expect(made).toMatchObject({ amount: 400, links: { payment: payment!.id } });
    const paid = await deliver(m, service.id, fake.advance(made.id, 'paid'));
    expect(paid.statusCode, paid.body).toBeLessThan(300);
    const refunds = (await call(m, 'GET', `/transactions/${txn.id}/refunds`)).json();
    expect(refunds.items).toEqual([expect.objectContaining({ status: 'succeeded', amount: 400 })]);
  });

  it('authorizes with the mandate (intent authorize), collects on capture, and voids another by cancelling its mandate', async () => {
    const { m } = await merchant();
    const txn = await pay(m, { intent: 'authorize' });
    await payer(txn);
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_succeeded' });
    const captured = await call(m, 'POST', `/transactions/${txn.id}/capture`, { amount: 600 });
    expect(captured.statusCode, captured.body).toBe(200);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_pending' });
    expect(fake.paymentsOf(txn.payment_service_transaction_id)).toEqual([expect.objectContaining({ amount: 600 })]);

    const other = await pay(m, { intent: 'authorize' });
    await payer(other);
    const voided = await call(m, 'POST', `/transactions/${other.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    expect(await get(m, other.id)).toMatchObject({ status: 'authorization_voided' });
    const mandate = fake.resources.get(other.payment_service_transaction_id)!.links as Record<string, string>;
    expect(fake.resources.get(mandate.mandate_request_mandate!)!.status).toBe('cancelled');
  });
  it('learns a confirmation without its webhook by a sync, and a failed collection leaves the transaction authorized', async () => {
    const { m, service } = await merchant();
    const txn = await pay(m);
    await payer(txn);
    const [payment] = fake.paymentsOf(txn.payment_service_transaction_id);
    fake.advance(payment!.id, 'confirmed');
    const synced = await call(m, 'POST', `/transactions/${txn.id}/sync`);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    // The same payment, not a second one: the sync's create repeated its Idempotency-Key.
    expect(fake.paymentsOf(txn.payment_service_transaction_id)).toHaveLength(1);

    const other = await pay(m, { intent: 'authorize' });
    await payer(other);
    expect((await call(m, 'POST', `/transactions/${other.id}/capture`, {})).statusCode).toBe(200);
    const [collection] = fake.paymentsOf(other.payment_service_transaction_id);
    const failed = await deliver(m, service.id, fake.advance(collection!.id, 'failed'));
    expect(failed.statusCode, failed.body).toBeLessThan(300);
    expect(await get(m, other.id)).toMatchObject({ status: 'authorization_succeeded', captured_amount: 0 });
  });
});

describe('errors', () => {
  it('refuses an access token GoCardless does not accept, naming the field', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await createService(m, 'sandbox_wrong-token');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('access_token');
  });

  it('declines a payment whose payer left the GoCardless page, and one whose mandate the bank refused', async () => {
    const { m } = await merchant();
    const left = await pay(m);
    await payer(left, 'exit');
    expect(await get(m, left.id)).toMatchObject({ status: 'authorization_declined', error_code: 'buyer_declined' });
    const refused = await pay(m, { amount: 2005 });
    await payer(refused);
    expect(await get(m, refused.id)).toMatchObject({ status: 'authorization_declined', raw_response_code: 'failed' });
    expect(fake.paymentsOf(refused.payment_service_transaction_id)).toEqual([]);
  });
});

describe('security', () => {
  it('keeps the access token and webhook secret out of every answer, log line and table', async () => {
    const { service } = await merchant();
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM payment_services WHERE id = ${service.id}`.execute(t.deps.db);
    expect(rows.rows[0]!.n).toBe(1);
    await expectNoSecrets(t, bodies, [GOCARDLESS_FAKE_TOKEN, GOCARDLESS_FAKE_WEBHOOK_SECRET]);
  });
});
