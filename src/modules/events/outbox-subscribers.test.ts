import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../test/helpers/event-subscription.ts';
import { merchantWithRiskified } from '../../../test/helpers/riskified.ts';
import { authorized, card, merchantWithMockCard } from '../../../test/helpers/transactions.ts';
import { startRiskifiedFake, type RiskifiedFake } from '../../../test/fakes/riskified-fake.ts';
import { settleTransaction } from '../transactions/settlements/settlements.service.ts';

/**
 * An event is written only for its deliveries (docs/webhooks.md, "Outbox"; decision 0148): a
 * merchant account without an active webhook subscription writes no event, delivery or
 * `deliver-webhook` job for a transaction's authorization, capture, refund, settlement or void
 * (nor for the card it stores);
 * with subscriptions each event has one delivery and one job per active one, as before. The
 * anti-fraud service's reports, enqueued with the transaction's events, do not depend on it.
 */

let t: TestApp;
let fake: RiskifiedFake;
beforeAll(async () => {
  fake = await startRiskifiedFake();
  // Settled by hand here: the settlement jobs stay far in the future.
  t = await buildTestApp({
    CONNECTOR_BASE_URLS: `riskified-anti-fraud=${fake.apiUrl}`,
    SETTLEMENT_DELAY_SECONDS: '86400',
  });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
afterEach(() => vi.restoreAllMocks());

const post = async (m: string, url: string, payload: object, status: number) => {
  const res = await t.request({ method: 'POST', url, merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
};

/**
 * Every path that writes a transaction's events: an authorization answered by one statement and
 * one recorded in a database transaction (`store: true`), a partial capture, a refund, a
 * settlement (its report lines' statement) and a void. The ids of the resources they change.
 */
async function payments(m: string): Promise<string[]> {
  const sale = await authorized(t, m);
  expect(sale.status).toBe('authorization_succeeded');
  expect((await post(m, `/transactions/${sale.id}/capture`, { amount: 600 }, 200)).status).toBe('succeeded');
  const captures = await t.request({ method: 'GET', url: `/transactions/${sale.id}/captures`, merchantAccountId: m });
  const [capture] = captures.json().items;
  const refund = await post(m, `/transactions/${sale.id}/refunds`, { amount: 200 }, 201);
  expect(refund.status).toBe('succeeded');
  await settleTransaction(t.deps, m, sale.id);
  const stored = await authorized(t, m, { store: true });
  expect(stored.status).toBe('authorization_succeeded');
  expect((await post(m, `/transactions/${stored.id}/void`, {}, 200)).status).toBe('succeeded');
  return [sale.id, capture.id, refund.id, stored.id];
}

/** The account's outbox: its events, their deliveries and the deliveries' jobs. */
async function outboxOf(m: string) {
  const events = await t.deps.db
    .selectFrom('events')
    .select(['id', 'kind', 'resource_id'])
    .where('merchant_account_id', '=', m)
    .orderBy('id')
    .execute();
  const deliveries = await t.deps.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'subscription_id'])
    .where('merchant_account_id', '=', m)
    .execute();
  const jobs = (
    await sql<{ delivery_id: string }>`SELECT payload->>'delivery_id' AS delivery_id FROM jobs
      WHERE name = 'deliver-webhook' AND payload->>'merchant_account_id' = ${m}`.execute(t.deps.db)
  ).rows.map((r) => r.delivery_id);
  return { events, deliveries, jobs };
}

const EVENT_KINDS = [
  'transaction.created',
  'transaction.captured',
  'capture.succeeded',
  'refund.created',
  'refund.succeeded',
  'transaction.settled',
  'transaction.created',
  'payment_method.created',
  'transaction.voided',
].sort();

describe('happy', () => {
  it('without a webhook subscription: no event, no delivery, no job for any of a payment’s changes', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await payments(m);
    expect(await outboxOf(m)).toEqual({ events: [], deliveries: [], jobs: [] });
  });

  it('with two active subscriptions: every event as before, with one delivery and one job per subscription', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const subscriptions = [(await subscribeToEvents(t, m)).id, (await subscribeToEvents(t, m)).id].sort();
    const [sale, capture, refund, stored] = await payments(m);
    const { events, deliveries, jobs } = await outboxOf(m);
    expect(events.map((e) => e.kind).sort()).toEqual(EVENT_KINDS);
    const resourceOf = (kind: string) => events.filter((e) => e.kind === kind).map((e) => e.resource_id);
    expect(resourceOf('transaction.created')).toEqual([sale, stored]);
    expect(resourceOf('capture.succeeded')).toEqual([capture]);
    expect(resourceOf('refund.succeeded')).toEqual([refund]);
    expect(resourceOf('transaction.voided')).toEqual([stored]);
    for (const event of events)
      expect(
        deliveries
          .filter((d) => d.event_id === event.id)
          .map((d) => d.subscription_id)
          .sort(),
        event.kind,
      ).toEqual(subscriptions);
    expect(deliveries).toHaveLength(2 * events.length);
    expect(jobs.sort()).toEqual(deliveries.map((d) => d.id).sort());
  });

  it('an inactive subscription (created so, or deactivated) writes nothing', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await post(m, '/webhook-subscriptions', { url: 'http://127.0.0.1:9/hooks', active: false }, 201);
    const deactivated = await subscribeToEvents(t, m);
    const res = await t.request({
      method: 'PUT',
      url: `/webhook-subscriptions/${deactivated.id}`,
      merchantAccountId: m,
      payload: { active: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    await payments(m);
    expect(await outboxOf(m)).toEqual({ events: [], deliveries: [], jobs: [] });
  });
});

describe('anti-fraud reports without a subscription', () => {
  const reportsOf = async (id: string) =>
    (
      await sql<{ update: string }>`SELECT payload->>'update' AS update FROM jobs
        WHERE name = 'send-anti-fraud-update' AND payload->>'transaction_id' = ${id}`.execute(t.deps.db)
    ).rows.map((r) => r.update);

  it('a plain authorization of an account with neither queues nothing: the queue is not poked', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const poke = vi.spyOn(t.deps.queue, 'pokeSoon');
    const txn = await authorized(t, m);
    expect(poke).not.toHaveBeenCalled();
    expect(await reportsOf(txn.id)).toEqual([]);
  });

  it('are enqueued with the change and the queue poked: the authorization, a void, a refund', async () => {
    const { m } = await merchantWithRiskified(t);
    const poke = vi.spyOn(t.deps.queue, 'pokeSoon');
    const sale = await authorized(t, m, { payment_method: card() });
    expect(sale).toMatchObject({ status: 'authorization_succeeded', anti_fraud_decision: 'accept' });
    expect(await reportsOf(sale.id)).toEqual(['approved']);
    expect(poke).toHaveBeenCalled();

    poke.mockClear();
    expect((await post(m, `/transactions/${sale.id}/void`, {}, 200)).status).toBe('succeeded');
    expect((await reportsOf(sale.id)).sort()).toEqual(['approved', 'canceled']);
    expect(poke).toHaveBeenCalled();

    const charged = await authorized(t, m, { intent: 'capture' });
    expect(charged.status).toBe('capture_succeeded');
    const refund = await post(m, `/transactions/${charged.id}/refunds`, { amount: 300 }, 201);
    expect(refund.status).toBe('succeeded');
    expect((await reportsOf(charged.id)).sort()).toEqual(['approved', 'refunded']);
    expect(await outboxOf(m)).toEqual({ events: [], deliveries: [], jobs: [] });
  });
});
