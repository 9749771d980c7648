import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { AMOUNT_SCENARIOS, MOCK_CARDS, type MockScenario } from '../../../connectors/mock/mock-card.scenarios.ts';
import { ANTI_FRAUD_REJECT_CARD, ANTI_FRAUD_REVIEW_CARD } from '../../../connectors/anti-fraud/mock-anti-fraud.ts';

/**
 * Every sandbox test card and test amount gives its documented outcome through HTTP. The cases
 * come from the exported tables, so a new test card cannot be forgotten: a new scenario kind
 * fails to compile in `expectScenario`.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const post = (m: string, url: string, payload?: object) =>
  t.request({ method: 'POST', url, merchantAccountId: m, ...(payload ? { payload } : {}) });
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
const attemptsOf = (id: string) =>
  t.deps.db.selectFrom('transaction_attempts').selectAll().where('transaction_id', '=', id).execute();

async function captureOk(m: string, id: string) {
  const res = await post(m, `/transactions/${id}/capture`, {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Creates a transaction with `payment` and checks the whole documented behaviour of `scenario`. */
async function expectScenario(scenario: MockScenario, payment: { number?: string; amount?: number }) {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const amount = payment.amount ?? 1000;
  const txn = await authorized(t, m, { amount, payment_method: card(payment.number) });
  const base = `/transactions/${txn.id}`;
  switch (scenario.kind) {
    case 'approve':
      expect(txn).toMatchObject({
        status: 'authorization_succeeded',
        intent_outcome: 'succeeded',
        error_code: null,
        cvv_response_code: 'match',
        authorized_amount: amount,
      });
      return;
    case 'decline':
      expect(txn).toMatchObject({
        status: 'authorization_declined',
        intent_outcome: 'failed',
        authorized_amount: 0,
        error_code: scenario.errorCode,
        raw_response_code: scenario.rawCode,
        raw_response_description: scenario.rawDescription,
        cvv_response_code: scenario.cvv ?? null,
      });
      expect((await post(m, `${base}/capture`, {})).statusCode).toBe(400);
      expect((await post(m, `${base}/void`)).statusCode).toBe(400);
      return;
    case 'fail':
      expect(txn).toMatchObject({
        status: 'authorization_failed',
        intent_outcome: 'failed',
        error_code: scenario.errorCode,
        raw_response_code: scenario.rawCode,
        raw_response_description: scenario.rawDescription,
      });
      expect((await post(m, `${base}/capture`, {})).statusCode).toBe(400);
      return;
    case 'timeout': {
      expect(txn).toMatchObject({ status: 'processing', intent_outcome: 'pending', error_code: null });
      expect((await attemptsOf(txn.id)).map((a) => a.status)).toEqual(['unknown']);
      const synced = await post(m, `${base}/sync`);
      expect(synced.statusCode, synced.body).toBe(200);
      expect(synced.json()).toMatchObject({
        status: 'authorization_succeeded',
        intent_outcome: 'succeeded',
        authorized_amount: amount,
      });
      expect((await attemptsOf(txn.id)).map((a) => a.status)).toEqual(['succeeded']);
      return;
    }
    case 'unavailable':
      expect(txn).toMatchObject({
        status: 'authorization_failed',
        intent_outcome: 'failed',
        error_code: 'service_network_error',
      });
      expect((await attemptsOf(txn.id)).map((a) => a.status)).toEqual(['failed']);
      return;
    case 'capture-pending': {
      expect(txn.status).toBe('authorization_succeeded');
      const capture = await captureOk(m, txn.id);
      expect(capture).toMatchObject({
        type: 'transaction-capture',
        status: 'pending',
        transaction: { status: 'capture_pending', captured_amount: 0 },
      });
      expect((await post(m, `${base}/capture`, {})).statusCode).toBe(400);
      expect((await post(m, `${base}/void`)).statusCode).toBe(400);
      const synced = (await post(m, `${base}/sync`)).json();
      expect(synced).toMatchObject({ status: 'capture_succeeded', captured_amount: amount });
      return;
    }
    case 'void-pending': {
      const voided = await post(m, `${base}/void`);
      expect(voided.statusCode, voided.body).toBe(200);
      expect(voided.json()).toMatchObject({
        type: 'transaction-void',
        status: 'pending',
        transaction: { status: 'authorization_void_pending' },
      });
      expect((await post(m, `${base}/capture`, {})).statusCode).toBe(400);
      expect((await post(m, `${base}/void`)).statusCode).toBe(400);
      expect((await post(m, `${base}/sync`)).json()).toMatchObject({ status: 'authorization_voided' });
      return;
    }
    case 'refund-decline': {
      expect(txn.status).toBe('authorization_succeeded');
      await captureOk(m, txn.id);
      const refund = await post(m, `${base}/refunds`, { amount: 100 });
      expect(refund.statusCode, refund.body).toBe(201);
      expect(refund.json()).toMatchObject({
        status: 'declined',
        amount: 100,
        error_code: 'refund_declined',
        raw_response_code: '12',
      });
      // The declined refund releases its reservation: the whole amount can be refunded again (and is declined again).
      expect(await get(m, base)).toMatchObject({ refunded_amount: 0 });
      expect((await post(m, `${base}/refunds`, {})).json()).toMatchObject({ status: 'declined', amount });
      return;
    }
    case 'dispute':
    case 'dispute-reversed': {
      expect(txn.status).toBe('authorization_succeeded');
      await captureOk(m, txn.id);
      expect(await get(m, base)).toMatchObject({ disputed: false, settled: false });
      await t.deps.queue.drain(t.deps);
      expect(await get(m, base)).toMatchObject({ disputed: true, settled: true, settled_amount: amount });
      const events = (await get(m, `${base}/events`)).items.map((e: { name: string }) => e.name);
      expect(events).toContain('payment-connector-report-chargeback-posted');
      expect(events.includes('payment-connector-report-chargeback-reversal-posted')).toBe(
        scenario.kind === 'dispute-reversed',
      );
      return;
    }
    case 'three-ds-required': {
      expect(txn).toMatchObject({
        status: 'authorization_declined',
        error_code: 'authentication_required',
        raw_response_code: '1A',
        three_d_secure: null,
      });
      const { merchantAccountId: m3 } = await merchantWithMockCard(t, { three_d_secure_enabled: true });
      const challenged = await authorized(t, m3, { amount, payment_method: card(payment.number) });
      expect(challenged).toMatchObject({
        status: 'buyer_approval_pending',
        three_d_secure: { status: null, method: 'challenge' },
      });
      // The buyer completes the challenge on the sandbox page (three-ds-challenge.test.ts covers the rest).
      const done = await t.app.inject({
        method: 'POST',
        url: `${new URL(challenged.payment_method.approval_url).pathname}/complete`,
      });
      expect(done.statusCode, done.body).toBe(200);
      expect(await get(m3, `/transactions/${challenged.id}`)).toMatchObject({
        status: 'authorization_succeeded',
        error_code: null,
        three_d_secure: { status: 'complete', method: 'challenge' },
      });
      return;
    }
    default: {
      const unknown: never = scenario;
      throw new Error(`no expectation for ${JSON.stringify(unknown)}`);
    }
  }
}

describe('happy', () => {
  it.each(MOCK_CARDS.map((c) => [c.number, c.description, c.scenario] as const))(
    'card %s: %s',
    async (number, _description, scenario) => {
      await expectScenario(scenario, { number });
    },
  );

  it.each([...AMOUNT_SCENARIOS].map(([amount, s]) => [amount, s.description, s.scenario] as const))(
    'amount %d with any card: %s',
    async (amount, _description, scenario) => {
      await expectScenario(scenario, { amount });
    },
  );

  it('approves any other card', async () => {
    await expectScenario({ kind: 'approve' }, { number: '4111111111111111' });
  });

  it('a test amount wins over a test card', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { amount: 2051, payment_method: card('4000000000000002') });
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'insufficient_funds' });
  });

  it('the capture-pending amount with intent capture is pending until a sync', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { amount: 2077, intent: 'capture' });
    expect(txn).toMatchObject({ status: 'capture_pending', intent_outcome: 'pending', captured_amount: 0 });
    expect((await post(m, `/transactions/${txn.id}/sync`)).json()).toMatchObject({
      status: 'capture_succeeded',
      intent_outcome: 'succeeded',
      captured_amount: 2077,
    });
  });

  it(`the anti-fraud review card ${ANTI_FRAUD_REVIEW_CARD} is authorized and waits for review`, async () => {
    expect(ANTI_FRAUD_REVIEW_CARD).toBe('4000000000000101');
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card(ANTI_FRAUD_REVIEW_CARD) });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      pending_review: true,
      anti_fraud_decision: 'review',
    });
  });
});

describe('errors', () => {
  it(`the anti-fraud reject card ${ANTI_FRAUD_REJECT_CARD} is declined without calling the connector`, async () => {
    expect(ANTI_FRAUD_REJECT_CARD).toBe('4100000000000019');
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: card(ANTI_FRAUD_REJECT_CARD) });
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      intent_outcome: 'failed',
      error_code: 'anti_fraud_rejected',
      anti_fraud_decision: 'reject',
      pending_review: false,
      payment_service_transaction_id: null,
      raw_response_code: null,
    });
    expect(await attemptsOf(txn.id)).toEqual([]);
    const events = (await get(m, `/transactions/${txn.id}/events`)).items.map((e: { name: string }) => e.name);
    expect(events.filter((n: string) => n.startsWith('payment-connector-'))).toEqual([]);
  });
});
