import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { subscribeToEvents } from '../../../test/helpers/event-subscription.ts';
import { recordStatements } from '../../../test/helpers/statements.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/webhook-receiver.ts';
import { openDb } from '../../db/client.ts';
import { withTransaction } from '../../db/transaction.ts';
import { JOBS } from '../../jobs/index.ts';
import { JobQueue } from '../../jobs/queue.ts';
import * as repo from './deliveries.repo.ts';
import { LEASE_MS, recordGroup } from './deliveries.service.ts';
import { emitEvent } from './events.service.ts';

/**
 * Deliveries' statements grouped across the jobs running at once (decision 0156): claims in one
 * statement, outcomes in one transaction, a failed group recorded one by one; each delivery
 * attempted and recorded once however the jobs are grouped, and by however many workers.
 */
let t: TestApp;
let receiver: Receiver;
let m: string;
beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  m = await createMerchantAccount(t.deps);
  receiver.respondWith(200);
  await subscribeToEvents(t, m, receiver.url);
});
afterEach(() => vi.useRealTimers());

const silent = { info() {}, warn() {}, error() {} };
const mine = () => receiver.received.filter((r) => r.json.merchant_account_id === m);
const emit = (resourceId: string, kind = 'transaction.updated') =>
  withTransaction(t.deps.db, (tx) =>
    emitEvent(tx, t.deps, {
      merchantAccountId: m,
      kind,
      resourceType: 'transaction',
      resourceId,
      payload: { id: resourceId },
    }),
  );
const deliveries = () =>
  t.deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_account_id', '=', m)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
/** Attempts recorded by delivery id. */
async function attemptsByDelivery(): Promise<Map<string, number>> {
  const rows = await t.deps.db
    .selectFrom('webhook_delivery_attempts')
    .select('delivery_id')
    .where('merchant_account_id', '=', m)
    .execute();
  const counts = new Map<string, number>();
  for (const { delivery_id } of rows) counts.set(delivery_id, (counts.get(delivery_id) ?? 0) + 1);
  return counts;
}
function advance(ms: number) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + ms);
}

/** Makes the database refuse the attempts of `deliveryId` (an outcome that cannot be recorded), until `lift()`. */
async function refuseAttemptsOf(deliveryId: string) {
  const name = `svc_test_refuse_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW.delivery_id = '${deliveryId}' THEN RAISE EXCEPTION 'attempt refused by the test'; END IF;
         RETURN NEW; END $$`,
    )
    .execute(t.deps.db);
  await sql
    .raw(`CREATE TRIGGER ${name} BEFORE INSERT ON webhook_delivery_attempts FOR EACH ROW EXECUTE FUNCTION ${name}()`)
    .execute(t.deps.db);
  return async () => {
    await sql.raw(`DROP TRIGGER ${name} ON webhook_delivery_attempts`).execute(t.deps.db);
    await sql.raw(`DROP FUNCTION ${name}()`).execute(t.deps.db);
  };
}

describe('happy', () => {
  it('claims the deliveries due at one poll, with their events, in one statement', async () => {
    for (let n = 0; n < 6; n++) await emit(`tx-${n}`);
    const recorded = recordStatements(t.deps.db);
    try {
      await t.deps.queue.drain(t.deps);
    } finally {
      recorded.stop();
    }
    const claims = recorded.statements.filter((s) => s.sql.includes('UPDATE webhook_deliveries d SET next_attempt_at'));
    expect(claims).toHaveLength(1);
    expect(
      mine()
        .map((r) => r.json.resource.id)
        .sort(),
    ).toEqual(['tx-0', 'tx-1', 'tx-2', 'tx-3', 'tx-4', 'tx-5']);
    expect((await deliveries()).every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect([...(await attemptsByDelivery()).values()]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('records a group of outcomes in one transaction, each once, retries and stops included', async () => {
    for (let n = 0; n < 4; n++) await emit(`tx-${n}`);
    const now = new Date();
    const claimed = await repo.claimDeliveries(
      t.deps.db,
      (await deliveries()).map((d) => ({
        merchantAccountId: m,
        id: d.id,
        now,
        leaseUntil: new Date(now.getTime() + LEASE_MS),
      })),
    );
    const [a, b, c, d] = [...claimed.values()].map((x) => x.delivery);
    const outcomes = await recordGroup(t.deps, [
      { delivery: a!, result: { statusCode: 204, durationMs: 3, error: null }, now },
      { delivery: b!, result: { statusCode: 503, durationMs: 4, error: 'HTTP 503' }, now },
      { delivery: c!, result: { stop: 'the subscription is inactive' }, now },
      { delivery: d!, result: { statusCode: 200, durationMs: 5, error: null }, now },
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : o.reason))).toEqual([
      'succeeded',
      'retrying',
      'stopped',
      'succeeded',
    ]);
    const rows = new Map((await deliveries()).map((row) => [row.id, row]));
    expect(rows.get(a!.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_status_code: 204,
      next_attempt_at: null,
    });
    expect(rows.get(b!.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 503,
      last_error: 'HTTP 503',
    });
    expect(rows.get(b!.id)!.next_attempt_at!.getTime()).toBeGreaterThan(now.getTime() + 20_000);
    expect(rows.get(c!.id)).toMatchObject({
      status: 'failed',
      attempts: 0,
      last_error: 'the subscription is inactive',
    });
    expect(rows.get(d!.id)!.delivered_at).toEqual(new Date(now.getTime()));
    const attempts = await attemptsByDelivery();
    expect([a, b, c, d].map((x) => attempts.get(x!.id) ?? 0)).toEqual([1, 1, 0, 1]);
    // The retry's job is enqueued at its time.
    const jobs = await t.deps.db
      .selectFrom('jobs')
      .select('run_at')
      .where('name', '=', 'deliver-webhook')
      .where(sql<boolean>`payload->>'delivery_id' = ${b!.id}`)
      .where('status', '=', 'queued')
      .execute();
    // (beside its first job, enqueued with the event and not run here)
    expect(jobs.map((j) => j.run_at.getTime())).toContain(rows.get(b!.id)!.next_attempt_at!.getTime());
  });

  it('two workers draining at once send and record each delivery once, in order per resource', async () => {
    for (let n = 0; n < 30; n++) await emit(`tx-${n % 10}`, `transaction.k${Math.floor(n / 10)}`);
    let otherDb = t.deps.db;
    let close = async () => {};
    if (t.deps.dbKind === 'postgres') {
      const handle = await openDb({
        databaseUrl: t.config.databaseUrl,
        dataDir: t.config.dataDir,
        schema: t.schema!,
        poolSize: 5,
      });
      [otherDb, close] = [handle.db, () => handle.close()];
    }
    const other = new JobQueue({ pollMs: 50, networkConcurrency: 8 }, JOBS, silent);
    try {
      for (let round = 0; round < 10 && (await deliveries()).some((d) => d.status === 'pending'); round++)
        await Promise.all([t.deps.queue.drain(t.deps), other.drain({ ...t.deps, db: otherDb })]);
    } finally {
      await close();
    }
    const rows = await deliveries();
    expect(rows).toHaveLength(30);
    expect(rows.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    const attempts = await attemptsByDelivery();
    expect(rows.map((d) => attempts.get(d.id))).toEqual(rows.map(() => 1));
    const sent = mine();
    expect(new Set(sent.map((r) => r.json.id)).size).toBe(30);
    expect(sent).toHaveLength(30);
    for (let n = 0; n < 10; n++)
      expect(sent.filter((r) => r.json.resource.id === `tx-${n}`).map((r) => r.json.kind)).toEqual([
        'transaction.k0',
        'transaction.k1',
        'transaction.k2',
      ]);
  });
});

describe('errors', () => {
  it('a group whose transaction fails is recorded one by one: only the failing outcome is not recorded', async () => {
    for (let n = 0; n < 4; n++) await emit(`tx-${n}`);
    const now = new Date();
    const claimed = [
      ...(
        await repo.claimDeliveries(
          t.deps.db,
          (
            await deliveries()
          ).map((d) => ({
            merchantAccountId: m,
            id: d.id,
            now,
            leaseUntil: new Date(now.getTime() + LEASE_MS),
          })),
        )
      ).values(),
    ].map((x) => x.delivery);
    const lift = await refuseAttemptsOf(claimed[2]!.id);
    let outcomes: Awaited<ReturnType<typeof recordGroup>>;
    try {
      outcomes = await recordGroup(
        t.deps,
        claimed.map((delivery) => ({ delivery, result: { statusCode: 200, durationMs: 1, error: null }, now })),
      );
    } finally {
      await lift();
    }
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const attempts = await attemptsByDelivery();
    expect(claimed.map((d) => attempts.get(d.id) ?? 0)).toEqual([1, 1, 0, 1]);
    const rows = new Map((await deliveries()).map((row) => [row.id, row]));
    expect(claimed.map((d) => rows.get(d.id)!.status)).toEqual(['succeeded', 'succeeded', 'pending', 'succeeded']);
  });

  it('a delivery whose outcome could not be recorded is attempted again once its lease is over, the others not', async () => {
    for (let n = 0; n < 5; n++) await emit(`tx-${n}`);
    const refused = (await deliveries())[3]!;
    const lift = await refuseAttemptsOf(refused.id);
    try {
      await t.deps.queue.drain(t.deps);
    } finally {
      await lift();
    }
    expect(mine()).toHaveLength(5);
    const job = await t.deps.db
      .selectFrom('jobs')
      .selectAll()
      .where('name', '=', 'deliver-webhook')
      .where(sql<boolean>`payload->>'delivery_id' = ${refused.id}`)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: expect.stringContaining('attempt refused'),
    });
    // Retried after the delivery's lease, not before: a retry within it would find the delivery leased and end.
    expect(job.run_at.getTime()).toBeGreaterThan(Date.now() + LEASE_MS - 5_000);
    advance(LEASE_MS + 10_000);
    await t.deps.queue.drain(t.deps);
    const rows = await deliveries();
    expect(rows.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    const attempts = await attemptsByDelivery();
    expect(rows.map((d) => attempts.get(d.id))).toEqual([1, 1, 1, 1, 1]);
    // Sent twice (at least once), the others once.
    expect(mine().filter((r) => r.json.resource.id === 'tx-3')).toHaveLength(2);
    expect(mine()).toHaveLength(6);
  });
});
