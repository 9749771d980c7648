import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECURRING } from '../../../jobs/index.ts';
import { signMockWebhook } from '../../../connectors/mock/mock-card.webhooks.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { StripeFake } from '../../../../test/fakes/stripe-fake.ts';

const SECRET = 'mock_whsec_inbound';
const fake = new StripeFake();
const STRIPE_SIGNING = 'whsec_inboundtest';
let t: TestApp;

beforeAll(async () => {
  await fake.start();
  t = await buildTestApp({ STRIPE_API_BASE_URL: fake.url });
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

const hookUrl = (m: string, service: string) => `/merchant-accounts/${m}/payment-services/${service}/webhooks`;

/** A signed sandbox event posted to the service's webhook address (no bearer token). */
function sendMock(m: string, service: string, event: Record<string, unknown>, secret = SECRET) {
  const body = JSON.stringify(event);
  return t.app.inject({
    method: 'POST',
    url: hookUrl(m, service),
    headers: { 'content-type': 'application/json', 'x-mock-signature': signMockWebhook(secret, body) },
    payload: body,
  });
}

async function mockMerchant() {
  return merchantWithMockCard(t, {
    fields: [
      { key: 'merchant_id', value: 'm-1' },
      { key: 'webhook_secret', value: SECRET },
    ],
  });
}

async function pay(m: string, body: Record<string, unknown>) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', payment_method: card(), ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const get = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}`, merchantAccountId: m })).json();
const outbox = async (m: string, id: string) =>
  (
    await sql<{
      kind: string;
    }>`SELECT kind FROM events WHERE merchant_account_id = ${m} AND resource_id = ${id} ORDER BY created_at, id`.execute(
      t.deps.db,
    )
  ).rows.map((r) => r.kind);

describe('happy', () => {
  it('a sandbox capture.succeeded settles a capture that was pending at the provider', async () => {
    const { merchantAccountId: m, paymentServiceId } = await mockMerchant();
    const txn = await pay(m, { intent: 'capture', payment_method: card('4000000000000077') });
    expect(txn.status).toBe('capture_pending');
    const res = await sendMock(m, paymentServiceId, {
      id: 'evt_cap_1',
      type: 'capture.succeeded',
      transaction_id: txn.payment_service_transaction_id,
      amount: 1000,
      currency: 'USD',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      type: 'inbound-webhook-receipt',
      event_id: 'evt_cap_1',
      duplicate: false,
      events: [{ event_id: 'evt_cap_1', duplicate: false }],
      actions: [{ kind: 'capture_succeeded', transaction_id: txn.id, result: 'applied' }],
    });
    expect(await get(m, txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000 });
  });

  it('a chargeback opens a dispute once: a replayed event changes nothing and emits nothing', async () => {
    const { merchantAccountId: m, paymentServiceId } = await mockMerchant();
    await subscribeToEvents(t, m);
    const txn = await pay(m, { intent: 'capture' });
    const event = {
      id: 'evt_cb_1',
      type: 'chargeback.opened',
      transaction_id: txn.payment_service_transaction_id,
      reference_id: 'dp_1',
      amount: 1000,
      currency: 'USD',
    };
    expect((await sendMock(m, paymentServiceId, event)).json()).toMatchObject({
      duplicate: false,
      actions: [{ kind: 'chargeback_opened', result: 'applied' }],
    });
    expect(await get(m, txn.id)).toMatchObject({ disputed: true });
    // A dispute notification is no settlement report line: no chargeback record is made up from it.
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}/chargebacks`, merchantAccountId: m })).json(),
    ).toEqual({ items: [] });
    const replay = await sendMock(m, paymentServiceId, event);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toMatchObject({
      duplicate: true,
      actions: [{ kind: 'chargeback_opened', transaction_id: txn.id, result: 'applied' }],
    });
    expect((await outbox(m, txn.id)).filter((k) => k === 'transaction.disputed')).toHaveLength(1);
    const won = await sendMock(m, paymentServiceId, { ...event, id: 'evt_cb_2', type: 'chargeback.won' });
    expect(won.json().actions[0].result).toBe('applied');
    expect(await outbox(m, txn.id)).toContain('transaction.chargeback_reversed');
    expect(
      (
        await t.request({ method: 'GET', url: `/transactions/${txn.id}/chargeback-reversals`, merchantAccountId: m })
      ).json(),
    ).toEqual({ items: [] });
  });

  it('a Stripe refund that was pending succeeds by refund.updated; its event is our refund.succeeded', async () => {
    const { merchantAccountId: m } = await mockMerchant();
    await subscribeToEvents(t, m);
    const service = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Stripe',
        payment_service_definition_id: 'stripe-card',
        fields: [
          { key: 'secret_key', value: fake.secretKey },
          { key: 'webhook_signing_secret', value: STRIPE_SIGNING },
        ],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
        position: 1,
      },
    });
    expect(service.statusCode, service.body).toBe(201);
    const stripeId = service.json().id as string;
    const txn = await pay(m, {
      intent: 'capture',
      payment_service_id: stripeId,
      payment_method: card('4000000000005126'),
    });
    expect(txn).toMatchObject({ status: 'capture_succeeded', payment_service: { id: stripeId } });
    const refund = (
      await t.request({
        method: 'POST',
        url: `/transactions/${txn.id}/refunds`,
        merchantAccountId: m,
        payload: { amount: 400 },
      })
    ).json();
    expect(refund.status).toBe('processing');
    const stripeRefund = [...fake.state.refunds.values()].find(
      (r) => r.payment_intent === txn.payment_service_transaction_id,
    )!;
    const { body, signature } = StripeFake.signedEvent(STRIPE_SIGNING, {
      id: 'evt_re_1',
      type: 'refund.updated',
      data: { object: { ...stripeRefund, status: 'succeeded' } },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: hookUrl(m, stripeId),
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().actions).toEqual([{ kind: 'refund_succeeded', transaction_id: txn.id, result: 'applied' }]);
    const after = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/refunds/${refund.id}`, merchantAccountId: m })
    ).json();
    expect(after).toMatchObject({ status: 'succeeded', amount: 400 });
    expect(await outbox(m, refund.id)).toContain('refund.succeeded');
  });

  it('accepts an event about a payment it does not know (nothing to apply), so the provider stops resending', async () => {
    const { merchantAccountId: m, paymentServiceId } = await mockMerchant();
    const res = await sendMock(m, paymentServiceId, {
      id: 'evt_other',
      type: 'capture.succeeded',
      transaction_id: 'mock_txn_unknown',
    });
    expect(res.json()).toMatchObject({
      duplicate: false,
      actions: [{ kind: 'capture_succeeded', transaction_id: null, result: 'unknown_transaction' }],
    });
  });
});

describe('errors', () => {
  it('404 for an unknown payment service, 400 for a definition without webhooks', async () => {
    const { merchantAccountId: m } = await mockMerchant();
    const res = await sendMock(m, '0196b7a0-0000-7000-8000-000000000000', {
      id: 'e',
      type: 'capture.succeeded',
      transaction_id: 'x',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ type: 'error', code: 'not_found', status: 404 });
    const redirect = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'bank-1' }],
        accepted_currencies: ['EUR'],
        accepted_countries: ['NL'],
      },
    });
    expect(redirect.statusCode, redirect.body).toBe(201);
    expect((await sendMock(m, redirect.json().id, { id: 'e', type: 'x', transaction_id: 'y' })).statusCode).toBe(400);
  });

  it('a webhook for a payment service without a webhook secret is 401', async () => {
    const { merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t);
    expect(
      (await sendMock(m, paymentServiceId, { id: 'e1', type: 'capture.succeeded', transaction_id: 'x' })).statusCode,
    ).toBe(401);
  });
});

describe('security', () => {
  it('a bad signature is 401 and changes nothing (no dedupe row, no dispute)', async () => {
    const { merchantAccountId: m, paymentServiceId } = await mockMerchant();
    const txn = await pay(m, { intent: 'capture' });
    const event = { id: 'evt_forged', type: 'chargeback.opened', transaction_id: txn.payment_service_transaction_id };
    const res = await sendMock(m, paymentServiceId, event, 'not the secret');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ type: 'error', code: 'unauthorized', status: 401 });
    expect(res.body).not.toContain(SECRET);
    expect(await get(m, txn.id)).toMatchObject({ disputed: false });
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM inbound_webhook_events WHERE merchant_account_id = ${m}`.execute(t.deps.db);
    expect(rows.rows[0]!.n).toBe(0);
    // A genuine event with the same id is still applied afterwards.
    expect((await sendMock(m, paymentServiceId, event)).json().actions[0].result).toBe('applied');
  });

  it('a body changed after signing is 401', async () => {
    const { merchantAccountId: m, paymentServiceId } = await mockMerchant();
    const body = JSON.stringify({ id: 'evt_t', type: 'capture.succeeded', transaction_id: 'x' });
    const res = await t.app.inject({
      method: 'POST',
      url: hookUrl(m, paymentServiceId),
      headers: { 'content-type': 'application/json', 'x-mock-signature': signMockWebhook(SECRET, body) },
      payload: body.replace('"x"', '"y"'),
    });
    expect(res.statusCode).toBe(401);
  });

  it("another merchant account's path does not reach the service (404), even with its valid signature", async () => {
    const a = await mockMerchant();
    const b = await mockMerchant();
    const res = await sendMock(b.merchantAccountId, a.paymentServiceId, {
      id: 'evt_x',
      type: 'capture.succeeded',
      transaction_id: 'x',
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('retention', () => {
  it('purges events received more than INBOUND_WEBHOOK_RETENTION_DAYS (45) ago, hourly; a younger one still stops its replay', async () => {
    const { merchantAccountId: m, paymentServiceId } = await mockMerchant();
    const event = (id: string) => ({ id, type: 'capture.succeeded', transaction_id: 'mock_txn_unknown' });
    for (const id of ['evt_46_days', 'evt_44_days', 'evt_now'])
      expect((await sendMock(m, paymentServiceId, event(id))).statusCode).toBe(200);
    const day = 24 * 3600 * 1000;
    const age = (id: string, days: number) =>
      sql`UPDATE inbound_webhook_events SET received_at = ${new Date(Date.now() - days * day)} WHERE merchant_account_id = ${m} AND event_id = ${id}`.execute(
        t.deps.db,
      );
    await age('evt_46_days', 46);
    await age('evt_44_days', 44);
    await t.deps.queue.enqueue(t.deps.db, 'purge-inbound-webhook-events', {});
    await t.deps.queue.drain(t.deps);
    const left = await sql<{
      event_id: string;
    }>`SELECT event_id FROM inbound_webhook_events WHERE merchant_account_id = ${m} ORDER BY event_id`.execute(
      t.deps.db,
    );
    expect(left.rows.map((r) => r.event_id)).toEqual(['evt_44_days', 'evt_now']);
    expect((await sendMock(m, paymentServiceId, event('evt_44_days'))).json()).toMatchObject({ duplicate: true });
    expect(RECURRING.find((r) => r.job.name === 'purge-inbound-webhook-events')?.everyMs).toBe(3600_000);
  });
});
