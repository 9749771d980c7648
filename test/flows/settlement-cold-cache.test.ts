import { afterAll, beforeAll, expect, it } from 'vitest';
import { settleTransaction } from '../../src/modules/transactions/settlements/settlements.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { authorized, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * A settlement reads its merchant's webhook subscriptions before its transaction begins
 * (settlements.service.ts). Read inside it, a miss of the read cache (a process just started with
 * settlements due, a subscription just changed) waited for a pool connection while the
 * settlements' own transactions held them: at once on PGlite, which has one session, and on
 * PostgreSQL once as many settlements ran as the pool has connections. The process then hung.
 */
let t: TestApp;
beforeAll(async () => {
  // Settled by hand here; a pool of 2 connections for 4 settlements at once.
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '86400', DATABASE_POOL_SIZE: '2' });
});
afterAll(async () => t.close());

it('settlements with their subscriptions not cached, more at once than the pool has connections, finish and are delivered', async () => {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const subscribed = await t.request({
    method: 'POST',
    url: '/webhook-subscriptions',
    merchantAccountId: m,
    payload: { url: 'https://hooks.example.com/svc' },
  });
  expect(subscribed.statusCode, subscribed.body).toBe(201);
  const txns = [];
  for (let i = 0; i < 4; i++) txns.push(await authorized(t, m, { intent: 'capture' }));
  // As in a process that has just started.
  t.deps.readCaches.webhookSubscriptions.clear();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise(
    (_, reject) => (timer = setTimeout(() => reject(new Error('the settlements did not finish within 10 s')), 10_000)),
  );
  try {
    await Promise.race([Promise.all(txns.map((txn) => settleTransaction(t.deps, m, txn.id))), hung]);
  } finally {
    clearTimeout(timer);
  }
  for (const txn of txns) {
    const events = await t.deps.db
      .selectFrom('events')
      .select('id')
      .where('merchant_account_id', '=', m)
      .where('resource_id', '=', txn.id)
      .where('kind', '=', 'transaction.settled')
      .execute();
    expect(events).toHaveLength(1);
    const deliveries = await t.deps.db
      .selectFrom('webhook_deliveries')
      .select('subscription_id')
      .where('merchant_account_id', '=', m)
      .where('event_id', '=', events[0]!.id)
      .execute();
    expect(deliveries.map((d) => d.subscription_id)).toEqual([subscribed.json().id]);
  }
});
