import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHECKOUT_FAKE_CHANNEL,
  CHECKOUT_FAKE_KEY,
  startCheckoutFake,
  type CheckoutFake,
} from '../fakes/checkout-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * Step-up authentication at a provider that authenticates cards itself (docs/routing.md), against
 * the local Checkout.com fake: amount 2300 is declined 20154 (3DS required) without `3ds.enabled`
 * and sent to Checkout.com's 3DS page with it. The service does not ask for 3DS; the step-up does.
 */
let t: TestApp;
let fake: CheckoutFake;

beforeAll(async () => {
  fake = await startCheckoutFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `checkout-card=${fake.baseUrl}` });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

const attempts = async (id: string) =>
  (
    await sql<{
      status: string;
      error_code: string | null;
    }>`SELECT status, error_code FROM transaction_attempts WHERE transaction_id = ${id} AND operation = 'authorize' ORDER BY id`.execute(
      t.deps.db,
    )
  ).rows;

async function merchant() {
  const m = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Checkout.com',
      payment_service_definition_id: 'checkout-card',
      fields: [
        { key: 'secret_key', value: CHECKOUT_FAKE_KEY },
        { key: 'processing_channel_id', value: CHECKOUT_FAKE_CHANNEL },
        { key: 'webhook_signature_key', value: 'step-up-signature-key' },
      ],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'GB'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const service = res.json().id as string;
  const rule = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/actions/route-transaction/rules',
    merchantAccountId: m,
    payload: { conditions: [], outcome: { payment_service_ids: [service], step_up_on_soft_decline: true } },
  });
  expect(rule.statusCode, rule.body).toBe(201);
  return { m, service };
}

const pay = (m: string, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    headers,
    payload: {
      amount: 2300,
      currency: 'USD',
      country: 'US',
      payment_method: {
        method: 'card',
        number: '4242424242424242',
        expiration_date: '03/30',
        security_code: '100',
        redirect_url: 'https://shop.example/done',
      },
    },
  });

describe('happy', () => {
  it('a 20154 decline is retried once with 3ds.enabled; the buyer completes Checkout.com 3DS; authorized', async () => {
    const { m, service } = await merchant();
    const res = await pay(m, { 'idempotency-key': 'step-up-cko-1' });
    expect(res.statusCode, res.body).toBe(201);
    const txn = res.json();
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/3ds/`) },
    });
    const sent = fake.bodies('/payments').slice(-2);
    expect(sent.map((b) => b['3ds'] ?? null)).toEqual([null, { enabled: true }]);
    // Two attempts, two idempotency keys: the retry can never be taken for the first.
    expect(sent[0]!.reference).not.toBe(sent[1]!.reference);
    expect(await attempts(txn.id)).toEqual([
      { status: 'declined', error_code: 'authentication_required' },
      { status: 'pending', error_code: null },
    ]);
    const trace = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/actions`, merchantAccountId: m })
    ).json().items;
    expect(trace[1].outcome.step_up).toMatchObject({
      from: service,
      to: service,
      raw_response_code: '20154',
      authenticated_by: 'payment-service',
      authentication: null,
      attempt: 2,
    });
    const back = new URL(fake.completeThreeDs(txn.payment_service_transaction_id, true));
    const returned = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(returned.statusCode, returned.body).toBe(200);
    const after = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(after.json()).toMatchObject({ status: 'authorization_succeeded' });
    const calls = fake.bodies('/payments').length;
    const replay = await pay(m, { 'idempotency-key': 'step-up-cko-1' });
    expect(replay.body).toBe(res.body);
    expect(fake.bodies('/payments')).toHaveLength(calls);
    expect(await attempts(txn.id)).toHaveLength(2);
  });
});
