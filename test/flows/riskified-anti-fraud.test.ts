import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { riskifiedServiceBody } from '../helpers/riskified.ts';
import { runScopeTests } from '../helpers/scope-tests.ts';
import { card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';
import {
  RISKIFIED_FAKE_SHOP,
  RISKIFIED_FAKE_TOKEN,
  startRiskifiedFake,
  type RiskifiedFake,
} from '../fakes/riskified-fake.ts';

/**
 * Riskified as the merchant account's anti-fraud service, through HTTP (decision 0139): its
 * decision is the transaction's `anti_fraud_decision`, a rejection declines early, a review holds
 * the transaction for review, and no decision (`error`) never blocks the payment.
 */
let t: TestApp;
let fake: RiskifiedFake;
const bodies: string[] = [];
const CARD = '4111111111111111';

beforeAll(async () => {
  fake = await startRiskifiedFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `riskified-anti-fraud=${fake.apiUrl}` });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const serviceBody = riskifiedServiceBody;

async function merchantWithRiskified() {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const res = await t.request({
    method: 'POST',
    url: '/anti-fraud-services',
    merchantAccountId: m,
    payload: serviceBody(),
  });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(201);
  return { m, service: res.json() };
}

async function pay(m: string, amount: number, extra: Record<string, unknown> = {}) {
  const res = await createTransaction(t, m, { amount, payment_method: card(CARD), ...extra });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const attemptsOf = (id: string) =>
  t.deps.db.selectFrom('transaction_attempts').selectAll().where('transaction_id', '=', id).execute();

describe('happy', () => {
  it('connects Riskified: the answer shows the shop domain and never the token', async () => {
    const { m, service } = await merchantWithRiskified();
    expect(service).toMatchObject({
      type: 'anti-fraud-service',
      merchant_account_id: m,
      anti_fraud_service_definition_id: 'riskified-anti-fraud',
      active: true,
      fields: [{ key: 'shop_domain', value: RISKIFIED_FAKE_SHOP }],
    });
    const read = await t.request({ method: 'GET', url: `/anti-fraud-services/${service.id}`, merchantAccountId: m });
    bodies.push(read.body);
    expect(read.json()).toEqual(service);
  });

  it('an approved order is authorized with anti_fraud_decision accept; Riskified got the signed order', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, 1299, {
      anti_fraud_fingerprint: 'device-1',
      connection_options: { 'riskified-anti-fraud': { line_items: [{ delivered_to: 'shipping_address' }] } },
    });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      anti_fraud_decision: 'accept',
      pending_review: false,
    });
    expect(fake.orders.find((o) => o.id === txn.id)).toMatchObject({
      total_price: '12.99',
      currency: 'USD',
      cart_token: 'device-1',
      payment_details: [{ credit_card_bin: '411111', credit_card_number: 'XXXX-XXXX-XXXX-1111' }],
      line_items: [{ delivered_to: 'shipping_address' }],
    });
  });

  it('each decision of the service is a transaction event (anti-fraud-decision, -error)', async () => {
    const { m, service } = await merchantWithRiskified();
    const eventsOf = async (id: string) =>
      (await t.request({ method: 'GET', url: `/transactions/${id}/events`, merchantAccountId: m }))
        .json()
        .items.filter((e: { name: string }) => e.name.startsWith('anti-fraud-'));
    const accepted = await pay(m, 1299);
    expect(await eventsOf(accepted.id)).toMatchObject([
      {
        name: 'anti-fraud-decision',
        context: {
          anti_fraud_service_id: service.id,
          anti_fraud_service_definition_id: 'riskified-anti-fraud',
          decision: 'accept',
          raw_status: 'approved',
        },
      },
    ]);
    const rejected = await pay(m, 2005);
    expect(await eventsOf(rejected.id)).toMatchObject([
      { name: 'anti-fraud-decision', context: { decision: 'reject' } },
    ]);
    const failed = await pay(m, 5000);
    expect(await eventsOf(failed.id)).toMatchObject([
      { name: 'anti-fraud-decision-error', context: { decision: 'error', raw_status: 'http_500' } },
    ]);
    // Gift cards: screened before the database transaction opens (decision 0144).
    const tendered = await pay(m, 3000, { gift_cards: [{ number: '6036281000000000001', pin: '1234', amount: 1000 }] });
    expect(await eventsOf(tendered.id)).toMatchObject([
      { name: 'anti-fraud-decision', context: { decision: 'accept' } },
    ]);
  });

  it('a submitted order is authorized and held for review', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, 2300);
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      anti_fraud_decision: 'review',
      pending_review: true,
    });
    const listed = await t.request({ method: 'GET', url: '/transactions?pending_review=true', merchantAccountId: m });
    expect(listed.json().items.map((i: { id: string }) => i.id)).toEqual([txn.id]);
  });

  it('no decision (a 500, an undocumented status) never blocks the payment: error, authorized', async () => {
    const { m } = await merchantWithRiskified();
    for (const amount of [5000, 5001]) {
      const txn = await pay(m, amount);
      expect(txn).toMatchObject({
        status: 'authorization_succeeded',
        anti_fraud_decision: 'error',
        pending_review: false,
      });
    }
    expect(t.logs.some((line) => line.includes('anti-fraud service gave no decision'))).toBe(true);
  });

  it("a flow rule on anti_fraud_decision sees the service's decision", async () => {
    const { m } = await merchantWithRiskified();
    const rule = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/decline-early/rules',
      merchantAccountId: m,
      payload: {
        conditions: [{ field: 'anti_fraud_decision', operator: 'one_of', value: ['error'] }],
        outcome: { reason: 'No anti-fraud decision' },
      },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    expect(await pay(m, 5000)).toMatchObject({ status: 'authorization_declined', error_code: 'flow_decline' });
    expect(await pay(m, 1299)).toMatchObject({ status: 'authorization_succeeded', anti_fraud_decision: 'accept' });
  });

  it('a payment recorded inside a database transaction (gift cards) is screened before it opens', async () => {
    const { m } = await merchantWithRiskified();
    const before = fake.orders.length;
    const txn = await pay(m, 3000, { gift_cards: [{ number: '6036281000000000001', pin: '1234', amount: 1000 }] });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      anti_fraud_decision: 'accept',
      pending_review: false,
    });
    expect(fake.orders.length).toBe(before + 1);
  });

  it('a warm cache asks the database nothing about the service: the same statements as without one', async () => {
    const statements = (res: { headers: Record<string, unknown> }) =>
      Number(/desc="(\d+) statements"/.exec(String(res.headers['server-timing']))![1]);
    const { m } = await merchantWithRiskified();
    const { merchantAccountId: plain } = await merchantWithMockCard(t);
    const counts: number[] = [];
    for (const account of [m, plain]) {
      await createTransaction(t, account, { amount: 1299, payment_method: card(CARD) });
      const res = await createTransaction(t, account, { amount: 1299, payment_method: card(CARD) });
      expect(res.statusCode, res.body).toBe(201);
      counts.push(statements(res));
    }
    expect(counts[0]).toBe(counts[1]);
    // Forgotten (as after another process's write), the next payment reads the service once more.
    t.deps.readCaches.antiFraudServices.invalidate(m);
    const cold = await createTransaction(t, m, { amount: 1299, payment_method: card(CARD) });
    expect(statements(cold)).toBe(counts[0]! + 1);
  });

  it('after the service is deleted, the sandbox service decides again', async () => {
    const { m, service } = await merchantWithRiskified();
    const del = await t.request({ method: 'DELETE', url: `/anti-fraud-services/${service.id}`, merchantAccountId: m });
    expect(del.statusCode).toBe(204);
    const before = fake.orders.length;
    expect(await pay(m, 2005)).toMatchObject({ status: 'authorization_declined', anti_fraud_decision: 'accept' });
    expect(fake.orders.length).toBe(before);
  });
});

describe('errors', () => {
  it('a rejected order is declined before any payment service is called', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, 2005);
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'anti_fraud_rejected',
      anti_fraud_decision: 'reject',
      payment_service_transaction_id: null,
    });
    expect(await attemptsOf(txn.id)).toEqual([]);
  });

  it('refuses an unknown definition, the sandbox one, missing and unknown fields; a second active service is 409', async () => {
    const { m } = await merchantWithRiskified();
    const post = (payload: object) =>
      t.request({ method: 'POST', url: '/anti-fraud-services', merchantAccountId: m, payload });
    for (const id of ['forter-anti-fraud', 'mock-anti-fraud']) {
      const res = await post(serviceBody({ anti_fraud_service_definition_id: id, active: false }));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toContain('is not an anti-fraud service definition (one of riskified-anti-fraud)');
    }
    const missing = await post(serviceBody({ fields: [{ key: 'shop_domain', value: 'x' }] }));
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain('auth_token: is required');
    const unknown = await post(serviceBody({ fields: [...serviceBody().fields, { key: 'api_key', value: 'x' }] }));
    expect(unknown.json().message).toContain('api_key: is not a field of riskified-anti-fraud');
    const second = await post(serviceBody());
    expect(second.statusCode, second.body).toBe(409);
    expect(second.json().code).toBe('duplicate_record');
  });

  it('an unknown id is 404', async () => {
    const { m } = await merchantWithRiskified();
    const res = await t.request({
      method: 'GET',
      url: '/anti-fraud-services/0190f1c2-0000-7000-8000-000000000009',
      merchantAccountId: m,
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    scope: 'anti-fraud-services.write',
    request: async () => ({ method: 'POST', url: '/anti-fraud-services', payload: serviceBody() }),
  });

  it('the auth token and the card number appear in no answer, log line or table row', async () => {
    await expectNoSecrets(t, bodies, [RISKIFIED_FAKE_TOKEN, CARD]);
  });
});
