import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { drainUntil, startReceiver, type Receiver } from '../../../../test/helpers/webhook-receiver.ts';
import { ANTI_FRAUD_REVIEW_CARD } from '../../../connectors/anti-fraud/mock-anti-fraud.ts';

/**
 * The capture hold of a transaction pending review (decision 0144), through HTTP: authorized only
 * whatever the intent, its capture refused until the review is approved, an approval capturing
 * what the intent asked, a decline voiding; approval, decline and capture racing leave one winner.
 */
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const post = (m: string, url: string, payload?: object) =>
  t.request({ method: 'POST', url, merchantAccountId: m, ...(payload ? { payload } : {}) });

async function held(intent: 'authorize' | 'capture') {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const txn = await authorized(t, m, { intent, amount: 2500, payment_method: card(ANTI_FRAUD_REVIEW_CARD) });
  return { m, txn };
}

const attemptsOf = (id: string) =>
  t.deps.db
    .selectFrom('transaction_attempts')
    .select(['operation', 'status', 'amount'])
    .where('transaction_id', '=', id)
    .orderBy('created_at')
    .execute();

describe('happy', () => {
  it('an intent capture transaction pending review is authorized only: the provider captured nothing', async () => {
    const { txn } = await held('capture');
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      intent: 'capture',
      intent_outcome: 'pending',
      pending_review: true,
      authorized_amount: 2500,
      captured_amount: 0,
    });
    expect(await attemptsOf(txn.id)).toEqual([{ operation: 'authorize', status: 'succeeded', amount: 2500 }]);
  });

  it('approving captures what the intent asked, through the ordinary capture', async () => {
    const { m, txn } = await held('capture');
    const res = await post(m, `/transactions/${txn.id}/review/approve`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'capture_succeeded',
      intent_outcome: 'succeeded',
      pending_review: false,
      anti_fraud_decision: 'review',
      captured_amount: 2500,
    });
    expect((await attemptsOf(txn.id)).map((a) => a.operation)).toEqual(['authorize', 'capture']);
    const events = await t.request({ method: 'GET', url: `/transactions/${txn.id}/events`, merchantAccountId: m });
    expect(events.json().items.map((e: { name: string }) => e.name)).toContain(
      'payment-connector-response-transaction-capture-succeeded',
    );
    const audit = await t.request({ method: 'GET', url: '/audit-logs', merchantAccountId: m });
    const actions = audit.json().items.filter((i: { resource: { id: string } }) => i.resource.id === txn.id);
    expect(actions.map((i: { action: string }) => i.action).sort()).toEqual(['captured', 'created', 'updated']);
    // The capture closed the transaction: a second one is the ordinary refusal.
    expect((await post(m, `/transactions/${txn.id}/capture`, {})).statusCode).toBe(400);
  });

  it('webhooks: created (authorized, pending review), nothing settled; captured and settled once approved', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const sub = await post(m, '/webhook-subscriptions', { url: receiver.url });
    expect(sub.statusCode, sub.body).toBe(201);
    const txn = await authorized(t, m, { intent: 'capture', payment_method: card(ANTI_FRAUD_REVIEW_CARD) });
    const kinds = () =>
      receiver.received.filter((r) => r.json.resource?.id === txn.id).map((r) => r.json.kind as string);
    await drainUntil(t.deps, () => kinds().includes('transaction.created'));
    await t.deps.queue.drain(t.deps as never);
    expect(kinds()).toEqual(['transaction.created']);
    const created = receiver.received.find((r) => r.json.resource?.id === txn.id)!;
    expect(created.json.payload).toMatchObject({ status: 'authorization_succeeded', pending_review: true });
    expect((await post(m, `/transactions/${txn.id}/review/approve`)).statusCode).toBe(200);
    await drainUntil(t.deps, () => kinds().includes('transaction.settled'));
    expect(kinds().slice(0, 3)).toEqual(['transaction.created', 'transaction.captured', 'transaction.settled']);
  });

  it('a decision retried with its idempotency key answers the same, and moves the money once', async () => {
    const cases = [
      ['approve', 'capture', 'capture'],
      ['decline', 'capture', 'void'],
      ['approve', 'authorize', null],
    ] as const;
    for (const [op, intent, follow] of cases) {
      const { m, txn } = await held(intent);
      const key = `review-${op}-${txn.id}`;
      const send = () =>
        t.request({
          method: 'POST',
          url: `/transactions/${txn.id}/review/${op}`,
          merchantAccountId: m,
          headers: { 'idempotency-key': key },
        });
      const first = await send();
      const again = await send();
      expect(first.statusCode, first.body).toBe(200);
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual(first.json());
      expect((await attemptsOf(txn.id)).map((a) => a.operation)).toEqual(['authorize', ...(follow ? [follow] : [])]);
    }
  });

  it('declining a held capture voids it: intent_outcome failed, nothing captured', async () => {
    const { m, txn } = await held('capture');
    const res = await post(m, `/transactions/${txn.id}/review/decline`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'authorization_voided', intent_outcome: 'failed', captured_amount: 0 });
    expect((await attemptsOf(txn.id)).map((a) => a.operation)).toEqual(['authorize', 'void']);
  });

  it('a void needs no review: voiding a held transaction releases it', async () => {
    const { m, txn } = await held('capture');
    expect((await post(m, `/transactions/${txn.id}/void`)).statusCode).toBe(200);
    expect((await post(m, `/transactions/${txn.id}/review/approve`)).statusCode).toBe(200);
    const read = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(read.json()).toMatchObject({ status: 'authorization_voided', pending_review: false, captured_amount: 0 });
  });
});

describe('errors', () => {
  it('a capture while pending review is 400 with a pending_review detail, for either intent', async () => {
    for (const intent of ['authorize', 'capture'] as const) {
      const { m, txn } = await held(intent);
      const res = await post(m, `/transactions/${txn.id}/capture`, { amount: 100 });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        type: 'error',
        code: 'bad_request',
        status: 400,
        details: [{ location: 'path', pointer: '/transaction_id', type: 'pending_review' }],
      });
      expect(res.json().message).toContain('pending a manual anti-fraud review');
      expect((await attemptsOf(txn.id)).map((a) => a.operation)).toEqual(['authorize']);
    }
  });

  it('approve, decline and capture at once: one decision wins, and the money moves once', async () => {
    for (let round = 0; round < 6; round++) {
      const intent = round % 2 === 0 ? 'capture' : 'authorize';
      const { m, txn } = await held(intent);
      const [approve, decline, capture] = await Promise.all([
        post(m, `/transactions/${txn.id}/review/approve`),
        post(m, `/transactions/${txn.id}/review/decline`),
        post(m, `/transactions/${txn.id}/capture`, {}),
      ]);
      const codes = [approve.statusCode, decline.statusCode].sort();
      expect(codes, `${approve.body} ${decline.body}`).toEqual([200, 400]);
      const read = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
      const operations = (await attemptsOf(txn.id)).map((a) => `${a.operation}:${a.status}`);
      if (decline.statusCode === 200) {
        expect(read.status).toBe('authorization_voided');
        expect(capture.statusCode).toBe(400);
        expect(operations).toEqual(['authorize:succeeded', 'void:succeeded']);
      } else if (intent === 'capture') {
        // Held capture: the approval captured it; the client's capture was refused, before or after.
        expect(read.status).toBe('capture_succeeded');
        expect(capture.statusCode).toBe(400);
        expect(operations).toEqual(['authorize:succeeded', 'capture:succeeded']);
      } else {
        // Refused while pending review, or captured once the approval had committed.
        const captured = capture.statusCode === 200;
        expect(read.status).toBe(captured ? 'capture_succeeded' : 'authorization_succeeded');
        expect(operations).toEqual(['authorize:succeeded', ...(captured ? ['capture:succeeded'] : [])]);
      }
      expect(read).toMatchObject({ pending_review: false, anti_fraud_decision: 'review' });
    }
  });
});
