import { sql } from 'kysely';
import { createLink, openPage } from '../helpers/payment-links.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import {
  DLOCAL_FAKE_LOGIN,
  DLOCAL_FAKE_SECRET,
  DLOCAL_FAKE_TRANS_KEY,
  startDlocalFake,
  type DlocalFake,
} from '../fakes/dlocal-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';

/**
 * The whole PIX flow through our API with a payment service of the `dlocal-pix` definition, against
 * the local dLocal fake: the service (credentials checked at dLocal), a payment waiting for its buyer
 * with the PIX code, paid and confirmed by dLocal's signed notification (once; a forged one 401),
 * or by a sync; a rejected payment; a lost answer found by its order id; an asynchronous refund;
 * dLocal's keys nowhere we answer, keep or log.
 */
let t: TestApp;
let fake: DlocalFake;
const bodies: string[] = [];

beforeAll(async () => {
  fake = await startDlocalFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `dlocal-pix=${fake.url}` });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const fields = (overrides: Record<string, string> = {}) =>
  Object.entries({
    x_login: DLOCAL_FAKE_LOGIN,
    x_trans_key: DLOCAL_FAKE_TRANS_KEY,
    secret_key: DLOCAL_FAKE_SECRET,
    ...overrides,
  }).map(([key, value]) => ({ key, value }));

async function createService(m: string, overrides: Record<string, string> = {}) {
  const payload = {
    display_name: 'dLocal PIX',
    payment_service_definition_id: 'dlocal-pix',
    fields: fields(overrides),
    accepted_currencies: ['BRL'],
    accepted_countries: ['BR'],
  };
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  bodies.push(res.body);
  return res;
}

async function merchantWithPix() {
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

const buyer = {
  billing_details: {
    first_name: 'Thiago',
    last_name: 'Gabriel',
    email_address: 'thiago@example.com',
    tax_id: { value: '530.333.155-50', kind: 'br.cpf' },
  },
};

async function create(m: string, body: Record<string, unknown> = {}) {
  return call(m, 'POST', '/transactions', {
    amount: 1000,
    currency: 'BRL',
    country: 'BR',
    intent: 'capture',
    payment_method: { method: 'pix', country: 'BR', currency: 'BRL', redirect_url: 'https://shop.example/done' },
    buyer,
    ...body,
  });
}

async function pay(m: string, body: Record<string, unknown> = {}) {
  const res = await create(m, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Posts a dLocal notification to the payment service's webhook endpoint, as dLocal does. */
function deliver(m: string, serviceId: string, request: ReturnType<DlocalFake['pay']>) {
  return t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${serviceId}/webhooks`,
    headers: request.headers as Record<string, string>,
    payload: request.rawBody,
  });
}

const get = async (m: string, id: string) => (await call(m, 'GET', `/transactions/${id}`)).json();

describe('happy', () => {
  it('creates the payment service after dLocal accepted the signed keys and lists PIX, secrets masked', async () => {
    const { service } = await merchantWithPix();
    expect(service).toMatchObject({ payment_service_definition_id: 'dlocal-pix', method: 'pix', active: true });
    expect(JSON.stringify(service)).not.toContain(DLOCAL_FAKE_SECRET);
    expect(fake.requests.some((r) => r.path === '/payments-methods?country=BR')).toBe(true);
  });

  it('offers pix among the payment options only for BRL in Brazil', async () => {
    const { m } = await merchantWithPix();
    const options = async (currency: string, country: string) =>
      (await call(m, 'POST', '/payment-options', { currency, country, amount: 1000 })).json().items;
    expect(await options('BRL', 'BR')).toContainEqual(expect.objectContaining({ method: 'pix', mode: 'redirect' }));
    expect((await options('USD', 'US')).map((o: { method: string }) => o.method)).not.toContain('pix');
  });

  it('is not offered on the hosted payment page, which collects no CPF and shows no code (decision 0125)', async () => {
    const { m } = await merchantWithPix();
    const link = await createLink(t, m, { amount: 5000, currency: 'BRL', country: 'BR' });
    const { res } = await openPage(t, link.url);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('data-method="pix"');
    const options = await call(m, 'POST', '/payment-options', { amount: 5000, currency: 'BRL', country: 'BR' });
    expect(options.json().items.map((o: { method: string }) => o.method)).toContain('pix');
  });

  it('waits for the buyer with the PIX code, then captures on dLocal’s signed notification, once', async () => {
    const { m, service } = await merchantWithPix();
    const txn = await pay(m);
    const payment = fake.payments.get(txn.payment_service_transaction_id)!;
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      method: 'pix',
      payment_method: { approval_url: payment.ticket.image_url },
      additional_identifiers: {
        payment_id: payment.id,
        pix_qr_code: payment.ticket.qr_code,
        pix_qr_code_image_url: payment.ticket.image_url,
        pix_expires_at: payment.ticket.expiration_date,
      },
    });
    const sent = fake.bodies('/payments').at(-1)!;
    expect(sent).toMatchObject({
      amount: 10,
      currency: 'BRL',
      country: 'BR',
      payment_method_id: 'PQ',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Thiago Gabriel', email: 'thiago@example.com', document: '53033315550' },
      notification_url: `${t.deps.config.publicUrl}/merchant-accounts/${m}/payment-services/${service.id}/webhooks`,
    });
    const attempt = await sql<{
      id: string;
    }>`SELECT id FROM transaction_attempts WHERE transaction_id = ${txn.id}`.execute(t.deps.db);
    expect(sent.order_id).toBe(attempt.rows[0]!.id);
    const notified = fake.pay(payment.id);
    const first = await deliver(m, service.id, notified);
    expect(first.statusCode, first.body).toBeLessThan(300);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
    const replay = await deliver(m, service.id, notified);
    expect(replay.statusCode).toBeLessThan(300);
    expect(replay.body).toContain('"duplicate":true');
  });

  it('captures a PIX paid without a notification by a sync (intent authorize too: PIX is a sale)', async () => {
    const { m } = await merchantWithPix();
    const txn = await pay(m, { intent: 'authorize' });
    expect((await call(m, 'POST', `/transactions/${txn.id}/sync`)).statusCode).toBe(200);
    expect(await get(m, txn.id)).toMatchObject({ status: 'buyer_approval_pending' });
    fake.pay(txn.payment_service_transaction_id);
    const res = await call(m, 'POST', `/transactions/${txn.id}/sync`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
  });

  it('refunds part of a paid PIX: pending at dLocal, succeeded on its signed refund notification', async () => {
    const { m, service } = await merchantWithPix();
    const txn = await pay(m);
    await deliver(m, service.id, fake.pay(txn.payment_service_transaction_id));
    const res = await call(m, 'POST', `/transactions/${txn.id}/refunds`, { amount: 400 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'processing', amount: 400 });
    const refund = [...fake.refunds.values()].at(-1)!;
    expect(refund).toMatchObject({ payment_id: txn.payment_service_transaction_id, amount: 4, status: 'PENDING' });
    expect(refund.notification_url).toContain(`/payment-services/${service.id}/webhooks`);
    const done = await deliver(m, service.id, fake.settleRefund(refund.id));
    expect(done.statusCode, done.body).toBeLessThan(300);
    const refunds = (await call(m, 'GET', `/transactions/${txn.id}/refunds`)).json().items;
    expect(refunds).toEqual([expect.objectContaining({ status: 'succeeded', amount: 400 })]);
  });
});

describe('errors', () => {
  it('refuses keys dLocal does not accept, naming the field', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await createService(m, { secret_key: 'wrong-secret-key-value' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('secret_key');
  });

  it('declines a PIX dLocal rejected, reported by its notification', async () => {
    const { m, service } = await merchantWithPix();
    const txn = await pay(m, { amount: 2005 });
    const res = await deliver(m, service.id, fake.pay(txn.payment_service_transaction_id));
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await get(m, txn.id)).toMatchObject({ status: 'authorization_declined', raw_response_code: '300' });
  });

  it('does not send a PIX without the buyer’s CPF or CNPJ to dLocal', async () => {
    const { m } = await merchantWithPix();
    const before = fake.bodies('/payments').length;
    const res = await create(m, {
      buyer: { billing_details: { first_name: 'Ana', email_address: 'ana@example.com' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_failed',
      raw_response_code: 'request_not_sent',
      raw_response_description: expect.stringContaining('CPF or CNPJ'),
    });
    expect(fake.bodies('/payments').length).toBe(before);
  });

  it('fails a PIX whose answer was lost: found by its order id and cancelled at dLocal, as its buyer never got the code', async () => {
    const { m } = await merchantWithPix();
    const txn = await pay(m, { amount: 2409 });
    expect(txn.status).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 3600_000));
    const after = await get(m, txn.id);
    expect(after).toMatchObject({ status: 'authorization_failed', error_code: 'service_network_error' });
    const made = [...fake.payments.values()].filter((p) => p.amount === 24.09);
    expect(made).toHaveLength(1);
    expect(made[0]!.status).toBe('CANCELLED');
  });
});

describe('security', () => {
  it('refuses a forged or stale notification with 401 and changes nothing', async () => {
    const { m, service } = await merchantWithPix();
    const txn = await pay(m);
    const events = async () =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM inbound_webhook_events WHERE payment_service_id = ${service.id}`.execute(
          t.deps.db,
        )
      ).rows[0]!.n;
    const forged = await deliver(m, service.id, fake.pay(txn.payment_service_transaction_id, { tamper: true }));
    expect(forged.statusCode).toBe(401);
    const stale = await deliver(
      m,
      service.id,
      fake.pay(txn.payment_service_transaction_id, { date: new Date(Date.now() - 4 * 86_400_000) }),
    );
    expect(stale.statusCode).toBe(401);
    expect(await events()).toBe(0);
    expect(await get(m, txn.id)).toMatchObject({ status: 'buyer_approval_pending' });
  });

  it("keeps dLocal's trans key and secret key out of every answer, log line and table", async () => {
    await expectNoSecrets(t, bodies, [DLOCAL_FAKE_SECRET, DLOCAL_FAKE_TRANS_KEY]);
  });
});
