import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { merchantWithRiskified as riskifiedMerchant } from '../helpers/riskified.ts';
import { card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';
import { RISKIFIED_FAKE_TOKEN, startRiskifiedFake, type RiskifiedFake } from '../fakes/riskified-fake.ts';

/**
 * What Riskified is told after its decision, through HTTP (decision 0143): the authorization's
 * outcome, a void, a refund and a chargeback of a payment it decided on, each by the
 * `send-anti-fraud-update` job enqueued with the change; retried after a 5xx, not after a 4xx,
 * never sent twice; a trace entry on the transaction for each try.
 */
let t: TestApp;
let fake: RiskifiedFake;
const bodies: string[] = [];
const CARD = '4111111111111111';
const DECLINED_CARD = '4000000000009995';
const DISPUTE_CARD = '4000000000000259';

beforeAll(async () => {
  fake = await startRiskifiedFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `riskified-anti-fraud=${fake.apiUrl}`, SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const merchantWithRiskified = () => riskifiedMerchant(t);

async function pay(m: string, body: Record<string, unknown>) {
  const res = await createTransaction(t, m, { payment_method: card(CARD), ...body });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/**
 * Runs the jobs, then once more the ones a report put off (a cancel, refund or chargeback waits
 * for the authorization's report: jobs run side by side), made due at once.
 */
async function drain() {
  await t.deps.queue.drain(t.deps);
  await sql`UPDATE jobs SET run_at = now() - interval '1 second'
    WHERE name = 'send-anti-fraud-update' AND status = 'queued' AND last_error LIKE '%waits for it%'`.execute(
    t.deps.db,
  );
  await t.deps.queue.drain(t.deps);
}
const sentFor = (id: string) =>
  fake.updates.filter((u) => (u.body.order ?? u.body.checkout)?.id === id).map((u) => u.path);

async function traceOf(m: string, id: string) {
  const res = await t.request({ method: 'GET', url: `/transactions/${id}/events?limit=100`, merchantAccountId: m });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(200);
  return res
    .json()
    .items.filter((e: { name: string }) => e.name.startsWith('anti-fraud-transaction-status-update'))
    .sort((a: { created_at: string }, b: { created_at: string }) => (a.created_at < b.created_at ? -1 : 1));
}

const jobsOf = (id: string) =>
  t.deps.db
    .selectFrom('jobs')
    .selectAll()
    .where('name', '=', 'send-anti-fraud-update')
    .where(sql<string>`payload->>'transaction_id'`, '=', id)
    .execute();

/** A retry comes due after its backoff (seconds): make it due now, as a second ago (STYLE J5). */
const dueNow = (id: string) =>
  sql`UPDATE jobs SET run_at = now() - interval '1 second'
      WHERE name = 'send-anti-fraud-update' AND status = 'queued' AND payload->>'transaction_id' = ${id}`.execute(
    t.deps.db,
  );

describe('happy', () => {
  it('an authorization approved by the provider is told as a Decision, once, with a trace entry', async () => {
    const { m, service } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1299, intent: 'authorize' });
    expect(txn).toMatchObject({ status: 'authorization_succeeded', anti_fraud_decision: 'accept' });
    // Enqueued with the answer; nothing is sent before the job runs.
    expect(sentFor(txn.id)).toEqual([]);
    expect((await jobsOf(txn.id)).map((j) => j.payload)).toEqual([
      { merchant_account_id: m, transaction_id: txn.id, update: 'approved' },
    ]);
    await drain();
    const decision = fake.updates.find((u) => u.path === '/api/decision' && u.body.order.id === txn.id)!;
    expect(decision.body.order.decision).toMatchObject({ external_status: 'approved', amount: 12.99, currency: 'USD' });
    expect(decision.body.order.payment_details.authorization_id).toBe(txn.payment_service_transaction_id);
    expect(await traceOf(m, txn.id)).toMatchObject([
      {
        name: 'anti-fraud-transaction-status-update',
        context: {
          anti_fraud_service_id: service.id,
          anti_fraud_service_definition_id: 'riskified-anti-fraud',
          update: 'approved',
          result: 'sent',
          raw_status: 'http_200',
          attempt: 1,
        },
      },
    ]);
    // A capture is no new authorization outcome, and a run again sends nothing twice.
    const capture = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
    expect(capture.statusCode, capture.body).toBe(200);
    await drain();
    await sql`UPDATE jobs SET status = 'queued', run_at = now() - interval '1 second'
      WHERE name = 'send-anti-fraud-update' AND payload->>'transaction_id' = ${txn.id}`.execute(t.deps.db);
    await drain();
    expect(sentFor(txn.id)).toEqual(['/api/decision']);
    expect(await traceOf(m, txn.id)).toHaveLength(1);
  });

  it('an authorization declined by the provider is told as a Checkout Denied with its error code', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1000, payment_method: card(DECLINED_CARD) });
    expect(txn).toMatchObject({ status: 'authorization_declined', anti_fraud_decision: 'accept' });
    await drain();
    expect(sentFor(txn.id)).toEqual(['/api/checkout_denied']);
    const denied = fake.updates.find((u) => u.body.checkout?.id === txn.id)!;
    expect(denied.body.checkout.payment_details[0].authorization_error).toMatchObject({
      error_code: 'insufficient_funds',
    });
    expect(await traceOf(m, txn.id)).toMatchObject([{ context: { update: 'declined', result: 'sent' } }]);
  });

  it('a void after the approval is told as a Cancel', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1000, intent: 'authorize' });
    const voided = await t.request({ method: 'POST', url: `/transactions/${txn.id}/void`, merchantAccountId: m });
    expect(voided.statusCode, voided.body).toBe(200);
    const read = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(read.json().status).toBe('authorization_voided');
    await drain();
    expect(sentFor(txn.id)).toEqual(['/api/decision', '/api/cancel']);
    expect(fake.updates.find((u) => u.path === '/api/cancel' && u.body.order.id === txn.id)!.body.order).toMatchObject({
      cancel_reason: 'voided',
    });
  });

  it('each refund that succeeds is told once, as a refund of its own amount', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1000, intent: 'capture' });
    expect(txn.status).toBe('capture_succeeded');
    const refunds: string[] = [];
    for (const amount of [300, 200]) {
      const res = await t.request({
        method: 'POST',
        url: `/transactions/${txn.id}/refunds`,
        merchantAccountId: m,
        payload: { amount, reason: 'Returned' },
      });
      expect(res.statusCode, res.body).toBe(201);
      refunds.push(res.json().id);
    }
    await drain();
    expect(sentFor(txn.id)).toEqual(['/api/decision', '/api/refund', '/api/refund']);
    const told = fake.updates.filter((u) => u.path === '/api/refund' && u.body.order.id === txn.id);
    // The two refunds' reports run side by side: in any order, each once.
    const byId = told.map((u) => u.body.order.refunds[0]).sort((a, b) => (a.refund_id < b.refund_id ? -1 : 1));
    expect(byId).toMatchObject([
      { refund_id: refunds[0], amount: 3, currency: 'USD', reason: 'Returned' },
      { refund_id: refunds[1], amount: 2, currency: 'USD', reason: 'Returned' },
    ]);
  });

  it("a chargeback of the sandbox's dispute card is told as a Chargeback with the report line", async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1000, intent: 'capture', payment_method: card(DISPUTE_CARD) });
    await drain();
    const read = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    expect(read.json().disputed).toBe(true);
    await drain();
    expect(sentFor(txn.id)).toEqual(['/api/decision', '/api/chargeback']);
    const [line] = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/chargebacks`, merchantAccountId: m })
    ).json().items;
    const told = fake.updates.find((u) => u.path === '/api/chargeback' && u.body.order.id === txn.id)!;
    expect(told.body.order.chargeback_details).toMatchObject({
      chargeback_amount: 10,
      chargeback_currency: 'USD',
      chargeback_at: line.posted_at,
      gateway: 'mock-card',
    });
    expect(await traceOf(m, txn.id)).toMatchObject([
      { context: { update: 'approved', result: 'sent' } },
      { context: { update: 'chargeback', result: 'sent' } },
    ]);
  });
});

describe('errors', () => {
  it('a 5xx is tried again after its backoff and then sent; each try leaves a trace entry', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1000, intent: 'authorize' });
    fake.failNext(503);
    await drain();
    expect(sentFor(txn.id)).toEqual([]);
    const [job] = await jobsOf(txn.id);
    expect(job).toMatchObject({ status: 'queued', attempts: 1 });
    expect(job!.last_error).toContain('http_503');
    expect(job!.run_at.getTime()).toBeGreaterThan(Date.now());
    await dueNow(txn.id);
    await drain();
    expect(sentFor(txn.id)).toEqual(['/api/decision']);
    expect((await jobsOf(txn.id))[0]!.status).toBe('succeeded');
    expect(await traceOf(m, txn.id)).toMatchObject([
      {
        name: 'anti-fraud-transaction-status-update-error',
        context: { result: 'failed', raw_status: 'http_503', attempt: 1, final: false },
      },
      { name: 'anti-fraud-transaction-status-update', context: { result: 'sent', attempt: 2 } },
    ]);
  });

  it('a 4xx is not tried again: the job fails with the refusal, recorded on the transaction', async () => {
    const { m } = await merchantWithRiskified();
    const txn = await pay(m, { amount: 1000, intent: 'authorize' });
    fake.failNext(400);
    await drain();
    const [job] = await jobsOf(txn.id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job!.last_error).toContain('refused');
    expect(await traceOf(m, txn.id)).toMatchObject([
      {
        name: 'anti-fraud-transaction-status-update-error',
        context: { result: 'refused', raw_status: 'http_400', final: true },
      },
    ]);
    await sql`UPDATE jobs SET status = 'queued', run_at = now() - interval '1 second' WHERE id = ${job!.id}`.execute(
      t.deps.db,
    );
    await drain();
    expect(sentFor(txn.id)).toEqual([]);
  });

  it('nothing is enqueued for a payment Riskified rejected, one it was not asked about, or without Riskified', async () => {
    const { m } = await merchantWithRiskified();
    const rejected = await pay(m, { amount: 2005 });
    expect(rejected).toMatchObject({ status: 'authorization_declined', anti_fraud_decision: 'reject' });
    const failed = await pay(m, { amount: 5000 });
    expect(failed).toMatchObject({ status: 'authorization_succeeded', anti_fraud_decision: 'error' });
    const { merchantAccountId: plain } = await merchantWithMockCard(t);
    const sandbox = await pay(plain, { amount: 1000 });
    for (const txn of [rejected, failed, sandbox]) expect(await jobsOf(txn.id)).toEqual([]);
  });
});

describe('security', () => {
  it('the auth token and the card number appear in no answer, log line, job payload or table row', async () => {
    await expectNoSecrets(t, bodies, [RISKIFIED_FAKE_TOKEN, CARD]);
  });
});
