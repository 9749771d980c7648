import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../helpers/build-test-app.ts';
import { createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * The per-process read caches of the authorization hot path (src/db/read-cache.ts): routable
 * payment services and active webhook subscriptions. A process forgets its copy when it commits a
 * change itself, and when the change feed tells it another process (or plain SQL) did. On
 * PostgreSQL two apps on one database stand for two server processes.
 */

const FIELDS = [{ key: 'merchant_id', value: 'merchant-1' }];

/** Polls until `check` holds: another process hears of a change when its notification arrives. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function createService(t: TestApp, m: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Another mock card',
      payment_service_definition_id: 'mock-card',
      fields: FIELDS,
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function setActive(t: TestApp, m: string, id: string, active: boolean): Promise<void> {
  const res = await t.request({
    method: 'PUT',
    url: `/payment-services/${id}`,
    merchantAccountId: m,
    payload: { active },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function deleteService(t: TestApp, m: string, id: string): Promise<void> {
  expect((await t.request({ method: 'DELETE', url: `/payment-services/${id}`, merchantAccountId: m })).statusCode).toBe(
    204,
  );
}

/** Authorizes through `t` and answers which service it went to. */
async function routedTo(t: TestApp, m: string): Promise<string | null> {
  const res = await createTransaction(t, m, { country: 'US' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().payment_service?.id ?? null;
}

async function subscribe(t: TestApp, m: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/webhook-subscriptions',
    merchantAccountId: m,
    payload: { url: 'https://hooks.example.com/svc' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** Authorizes through `t` and answers which subscriptions its `transaction.created` event is delivered to. */
async function deliveredTo(t: TestApp, m: string): Promise<string[]> {
  const res = await createTransaction(t, m, { country: 'US' });
  expect(res.statusCode, res.body).toBe(201);
  const rows = await t.deps.db
    .selectFrom('webhook_deliveries')
    .select('subscription_id')
    .where('merchant_account_id', '=', m)
    .where('resource_id', '=', res.json().id)
    .execute();
  return rows.map((r) => r.subscription_id).sort();
}

const same = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify([...b].sort());

describe('one process', () => {
  let a: TestApp;
  beforeAll(async () => {
    a = await buildTestApp();
  });
  afterAll(async () => {
    await a.close();
  });

  it('routes from the cache, forgets it at once after its own writes, and hears writes made in plain SQL', async () => {
    const { merchantAccountId: m, paymentServiceId: s1 } = await merchantWithMockCard(a);
    expect(a.deps.readCaches.paymentServices.isServing).toBe(true);
    expect(await routedTo(a, m)).toBe(s1);
    const cached = a.deps.readCaches.paymentServices.size;
    expect(cached).toBeGreaterThan(0);

    await setActive(a, m, s1, false);
    const s2 = await createService(a, m);
    expect(await routedTo(a, m)).toBe(s2);

    // No service code ran: only the trigger's notification can tell the cache.
    await sql`UPDATE payment_services SET active = true WHERE merchant_account_id = ${m} AND id = ${s1}`.execute(
      a.deps.db,
    );
    await eventually('the cache hears of the SQL update', async () => (await routedTo(a, m)) === s1);

    await deleteService(a, m, s1);
    expect(await routedTo(a, m)).toBe(s2);
  });

  it('fans events out to the current subscriptions', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(a);
    expect(await deliveredTo(a, m)).toEqual([]);
    const w1 = await subscribe(a, m);
    expect(await deliveredTo(a, m)).toEqual([w1]);

    await sql`UPDATE webhook_subscriptions SET active = false WHERE merchant_account_id = ${m} AND id = ${w1}`.execute(
      a.deps.db,
    );
    await eventually('the cache hears of the SQL update', async () => same(await deliveredTo(a, m), []));
    await sql`UPDATE webhook_subscriptions SET active = true WHERE merchant_account_id = ${m} AND id = ${w1}`.execute(
      a.deps.db,
    );
    await eventually('the cache hears of the SQL update', async () => same(await deliveredTo(a, m), [w1]));

    expect(
      (await a.request({ method: 'DELETE', url: `/webhook-subscriptions/${w1}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    expect(await deliveredTo(a, m)).toEqual([]);
  });

  it('records the authorization when a cached subscription was deleted unheard (the outbox falls back to a fresh read)', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(a);
    const w1 = await subscribe(a, m);
    expect(await deliveredTo(a, m)).toEqual([w1]);
    // A deletion whose notification has not arrived yet: no trigger, no service code.
    await sql`ALTER TABLE webhook_subscriptions DISABLE TRIGGER webhook_subscriptions_notify_change`.execute(a.deps.db);
    try {
      await sql`DELETE FROM webhook_subscriptions WHERE merchant_account_id = ${m} AND id = ${w1}`.execute(a.deps.db);
    } finally {
      await sql`ALTER TABLE webhook_subscriptions ENABLE TRIGGER webhook_subscriptions_notify_change`.execute(
        a.deps.db,
      );
    }
    expect(await deliveredTo(a, m)).toEqual([]);
  });

  it('reads the database inside a transaction, not the cache', async () => {
    const { listRoutablePaymentServices } = await import(
      '../../src/modules/payment-services/payment-services.service.ts'
    );
    const { merchantAccountId: m, paymentServiceId: s1 } = await merchantWithMockCard(a);
    expect((await listRoutablePaymentServices(a.deps.db, a.deps, m)).map((r) => r.id)).toEqual([s1]);
    const seen = await a.deps.db.transaction().execute(async (tx) => {
      await sql`UPDATE payment_services SET active = false WHERE merchant_account_id = ${m} AND id = ${s1}`.execute(tx);
      return (await listRoutablePaymentServices(tx, a.deps, m)).map((r) => r.id);
    });
    expect(seen).toEqual([]);
  });
});

describe.skipIf(!usesPostgres())('two processes on one database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await buildTestApp();
    // A long first retry keeps B's feed down for a while after its connection is killed.
    b = await buildTestApp({}, { peerOf: a, runtime: { changeFeed: { retryMs: { min: 1_000, max: 1_000 } } } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('B stops routing to a service A deactivated or deleted, once notified', async () => {
    const { merchantAccountId: m, paymentServiceId: s1 } = await merchantWithMockCard(a);
    expect(await routedTo(b, m)).toBe(s1);
    expect(b.deps.readCaches.paymentServices.isServing).toBe(true);

    const s2 = await createService(a, m);
    await setActive(a, m, s1, false);
    await eventually('B routes to the new service', async () => (await routedTo(b, m)) === s2);
    await setActive(a, m, s1, true);
    await eventually('B routes to the reactivated service', async () => (await routedTo(b, m)) === s1);
    await deleteService(a, m, s1);
    await eventually('B stops routing to the deleted service', async () => (await routedTo(b, m)) === s2);
  });

  it('B fans events out to the subscriptions A created, deactivated and deleted, once notified', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(a);
    expect(await deliveredTo(b, m)).toEqual([]);
    const w1 = await subscribe(a, m);
    await eventually('B delivers to the new subscription', async () => same(await deliveredTo(b, m), [w1]));
    const res = await a.request({
      method: 'PUT',
      url: `/webhook-subscriptions/${w1}`,
      merchantAccountId: m,
      payload: { active: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    const w2 = await subscribe(a, m);
    await eventually('B delivers to the current subscriptions only', async () => same(await deliveredTo(b, m), [w2]));
    expect(
      (await a.request({ method: 'DELETE', url: `/webhook-subscriptions/${w2}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    await eventually('B stops delivering to the deleted subscription', async () => same(await deliveredTo(b, m), []));
  });

  it('while the change feed is down B reads the database, and it reconnects', async () => {
    const { merchantAccountId: m, paymentServiceId: s1 } = await merchantWithMockCard(a);
    expect(await routedTo(b, m)).toBe(s1);
    // Both apps of this file share the schema, so both feeds go (other files' feeds stay).
    const killed = await sql<{
      ok: boolean;
    }>`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = ${`svc-changes ${a.schema}`}`.execute(
      a.deps.db,
    );
    expect(killed.rows.length).toBe(2);
    await eventually('B notices its feed is gone', async () => !b.deps.readCaches.paymentServices.isServing, 2_000);

    // Unheard by B (nothing listens), yet B must not route to the old service.
    const s2 = await createService(a, m);
    await setActive(a, m, s1, false);
    expect(await routedTo(b, m)).toBe(s2);

    await eventually(
      'B reconnects',
      async () => b.deps.readCaches.paymentServices.isServing && b.deps.readCaches.webhookSubscriptions.isServing,
    );
    expect(await routedTo(b, m)).toBe(s2);
    await setActive(a, m, s1, true);
    await eventually('B hears changes again', async () => (await routedTo(b, m)) === s1);
  });
});
