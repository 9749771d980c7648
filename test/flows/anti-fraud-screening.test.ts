import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { merchantWithRiskified as riskifiedMerchant } from '../helpers/riskified.ts';
import { card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';
import { startRiskifiedFake, type RiskifiedFake } from '../fakes/riskified-fake.ts';
import { decideAntiFraud } from '../../src/modules/anti-fraud-services/anti-fraud-decision.service.ts';
import type { RequestContext } from '../../src/context.ts';
import { sandboxGooglePayToken } from '../../src/wallets/sandbox-tokens.ts';

/**
 * The payments recorded inside one database transaction (gift cards, checkout sessions) are
 * screened by the configured anti-fraud service before that transaction opens (decision 0144),
 * through HTTP with the Riskified fake (23.00: submitted for review; otherwise approved).
 */
let t: TestApp;
let fake: RiskifiedFake;
const PAN = '4111111111111111';
const GIFT_CARD = { number: '6036281000000000001', pin: '1234' };

beforeAll(async () => {
  fake = await startRiskifiedFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `riskified-anti-fraud=${fake.apiUrl}` });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const merchantWithRiskified = async () => (await riskifiedMerchant(t)).m;

async function pay(m: string, body: Record<string, unknown>) {
  const res = await createTransaction(t, m, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const decisionEvents = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}/events`, merchantAccountId: m }))
    .json()
    .items.filter((e: { name: string }) => e.name.startsWith('anti-fraud-'));

async function checkoutSession(m: string, amount: number) {
  const session = await t.request({
    method: 'POST',
    url: '/checkout/sessions',
    merchantAccountId: m,
    payload: { amount, currency: 'USD' },
  });
  expect(session.statusCode, session.body).toBe(201);
  const id = session.json().id as string;
  const fields = await t.app.inject({
    method: 'POST',
    url: `/checkout/sessions/${id}/fields`,
    payload: { payment_method: { method: 'card', number: PAN, expiration_date: '12/39', security_code: '123' } },
  });
  expect(fields.statusCode, fields.body).toBe(204);
  return id;
}

describe('happy', () => {
  it('a card with gift cards: the service decides (review), the transaction is held', async () => {
    const m = await merchantWithRiskified();
    const before = fake.orders.length;
    const txn = await pay(m, {
      amount: 2300,
      intent: 'capture',
      payment_method: card(PAN),
      gift_cards: [{ ...GIFT_CARD, amount: 500 }],
    });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      anti_fraud_decision: 'review',
      pending_review: true,
      captured_amount: 0,
    });
    expect(fake.orders.length).toBe(before + 1);
    expect(fake.orders.at(-1)).toMatchObject({ id: txn.id, total_price: '23.00' });
    expect(await decisionEvents(m, txn.id)).toMatchObject([
      { name: 'anti-fraud-decision', context: { decision: 'review', raw_status: 'submitted' } },
    ]);
  });

  it('gift cards alone: screened without a card', async () => {
    const m = await merchantWithRiskified();
    const before = fake.orders.length;
    const txn = await pay(m, { amount: 1000, payment_method: undefined, gift_cards: [{ ...GIFT_CARD, amount: 1000 }] });
    expect(txn).toMatchObject({ anti_fraud_decision: 'accept', pending_review: false });
    expect(fake.orders.length).toBe(before + 1);
    expect(fake.orders.at(-1)!.payment_details ?? []).toEqual([]);
  });

  it("a checkout session: screened with the session card's BIN and last four, the card still used once", async () => {
    const m = await merchantWithRiskified();
    const sessionId = await checkoutSession(m, 2300);
    const before = fake.orders.length;
    const txn = await pay(m, { amount: 2300, payment_method: { method: 'checkout-session', id: sessionId } });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      anti_fraud_decision: 'review',
      pending_review: true,
    });
    expect(fake.orders.length).toBe(before + 1);
    const sent = JSON.stringify(fake.orders.at(-1));
    expect(sent).toContain('"credit_card_bin":"411111"');
    expect(sent).not.toContain(PAN);
    // The session's card was used up by the transaction, not by the screening.
    const again = await createTransaction(t, m, {
      amount: 2300,
      payment_method: { method: 'checkout-session', id: sessionId },
    });
    expect(again.statusCode).not.toBe(201);
  });

  it('a Google Pay token: screened with its last four and brand, and still used once by the payment', async () => {
    const m = await merchantWithRiskified();
    const wallet = await t.request({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId: m,
      payload: { provider: 'google', merchant_name: 'Wallet Shop', accept_terms_and_conditions: true },
    });
    expect(wallet.statusCode, wallet.body).toBe(201);
    const token = JSON.stringify(sandboxGooglePayToken({ number: '4895370012003478', expirationDate: '11/31' }));
    const before = fake.orders.length;
    const txn = await pay(m, { amount: 2300, country: 'US', payment_method: { method: 'googlepay', token } });
    expect(txn).toMatchObject({ method: 'googlepay', anti_fraud_decision: 'review', pending_review: true });
    expect(fake.orders.length).toBe(before + 1);
    expect(fake.orders.at(-1)).toMatchObject({
      gateway: 'googlepay',
      payment_details: [{ credit_card_number: 'XXXX-XXXX-XXXX-3478', credit_card_company: 'visa' }],
    });
    // The screening did not use the token up; the payment did.
    const again = await createTransaction(t, m, { amount: 2300, payment_method: { method: 'googlepay', token } });
    expect(again.statusCode).toBe(400);
  });

  it('without a configured service nothing is asked before the transaction: the sandbox service decides', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const before = fake.orders.length;
    const txn = await pay(m, { amount: 3000, payment_method: card(PAN), gift_cards: [{ ...GIFT_CARD, amount: 500 }] });
    expect(txn.anti_fraud_decision).toBe('accept');
    expect(fake.orders.length).toBe(before);
  });
});

describe('errors', () => {
  it('an unknown checkout session is refused as before, and the service is not asked', async () => {
    const m = await merchantWithRiskified();
    const before = fake.orders.length;
    const res = await createTransaction(t, m, {
      amount: 1500,
      payment_method: { method: 'checkout-session', id: '0190f1c2-0000-7000-8000-000000000009' },
    });
    expect(res.statusCode).toBe(404);
    expect(fake.orders.length).toBe(before);
  });

  it('a configured service not asked (a database transaction open) is skipped, with the reason', async () => {
    const m = await merchantWithRiskified();
    const ctx = { deps: t.deps, merchantAccountId: m, log: t.app.log } as unknown as RequestContext;
    const order = {
      transactionId: '0190f1c2-0000-7000-8000-000000000001',
      amount: 1000,
      currency: 'USD',
      country: null,
      createdAt: new Date(),
      method: 'card',
      card: null,
      buyer: null,
      ipAddress: null,
      fingerprint: null,
      options: null,
    };
    const result = await decideAntiFraud(t.deps.db, ctx, order, { remote: false });
    expect(result).toMatchObject({
      decision: 'skipped',
      event: { name: 'anti-fraud-decision-skipped', context: { reason: 'database_transaction_open' } },
    });
  });
});
