import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { startReceiver, type Receiver } from '../../../test/helpers/webhook-receiver.ts';
import { withTransaction } from '../../db/transaction.ts';
import { RECURRING } from '../../jobs/index.ts';
import { attemptDelivery } from './deliveries.service.ts';
import { uuidv7Floor } from '../../lib/ids.ts';
import * as repo from './events-retention.repo.ts';
import { purgeOldWebhookEvents } from './events-retention.service.ts';
import { emitEvent } from './events.service.ts';

/** WEBHOOK_EVENT_RETENTION_DAYS (decision 0161): events, their deliveries and attempts go; pending ones stay. */

const DAY = 24 * 3600 * 1000;
let t: TestApp;
let receiver: Receiver;
let m: string;
let sub: string;
beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_EVENT_RETENTION_DAYS: '30' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function subscribedAccount(): Promise<{ m: string; sub: string }> {
  const account = await createMerchantAccount(t.deps);
  return { m: account, sub: (await subscribeToEvents(t, account, receiver.url)).id };
}

beforeEach(async () => {
  receiver.respondWith(200);
  ({ m, sub } = await subscribedAccount());
});

const emit = (account: string, resourceId: string) =>
  withTransaction(t.deps.db, (tx) =>
    emitEvent(tx, t.deps, {
      merchantAccountId: account,
      kind: 'transaction.updated',
      resourceType: 'transaction',
      resourceId,
      payload: { id: resourceId },
    }),
  );
const drain = () => t.deps.queue.drain(t.deps);
const deliveries = async (account = m, subscription = sub) => {
  const res = await t.request({
    method: 'GET',
    url: `/webhook-subscriptions/${subscription}/deliveries`,
    merchantAccountId: account,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Array<{ id: string; status: string; event_id: string }>;
};
const counts = async (account = m) => {
  const { rows } = await sql<{ events: string; deliveries: string; attempts: string }>`
    SELECT (SELECT count(*) FROM events WHERE merchant_account_id = ${account}) AS events,
      (SELECT count(*) FROM webhook_deliveries WHERE merchant_account_id = ${account}) AS deliveries,
      (SELECT count(*) FROM webhook_delivery_attempts WHERE merchant_account_id = ${account}) AS attempts`.execute(
    t.deps.db,
  );
  return {
    events: Number(rows[0]!.events),
    deliveries: Number(rows[0]!.deliveries),
    attempts: Number(rows[0]!.attempts),
  };
};

/**
 * A delivery that failed: its 24 hours are over (set back here) and the receiver answers 500. Its
 * attempt runs at the real time: a later one would move the process's UUIDv7 clock, and with it
 * the ids of the events made after.
 */
async function failedDelivery(account: string, resourceId: string): Promise<string> {
  await emit(account, resourceId);
  const { rows } = await sql<{ id: string }>`
    UPDATE webhook_deliveries SET give_up_at = now() - interval '1 minute'
    WHERE merchant_account_id = ${account} AND resource_id = ${resourceId} RETURNING id`.execute(t.deps.db);
  receiver.respondWith(500);
  await attemptDelivery(t.deps, account, rows[0]!.id, new Date());
  receiver.respondWith(200);
  return rows[0]!.id;
}

/**
 * `days` after the newest event was made, by its id: the purge's clock. Files sharing this worker
 * may have moved the process's UUIDv7 clock ahead of the wall clock (an id made for a later time).
 */
async function daysAfterNewestEvent(days: number): Promise<Date> {
  const { rows } = await sql<{ id: string }>`SELECT id::text AS id FROM events ORDER BY id DESC LIMIT 1`.execute(
    t.deps.db,
  );
  const id = rows[0]!.id;
  return new Date(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16) + days * DAY);
}

describe('happy', () => {
  it('keeps events and deliveries 30 days, then deletes them with their attempts; the purge runs hourly', async () => {
    await emit(m, 'tx-delivered');
    await drain();
    const failed = await failedDelivery(m, 'tx-failed');
    expect((await deliveries()).map((d) => d.status).sort()).toEqual(['failed', 'succeeded']);
    const before = await counts();
    expect(before).toEqual({ events: 2, deliveries: 2, attempts: 2 });

    // 29 days and 23 hours on: nothing is old enough.
    expect(await purgeOldWebhookEvents(t.deps, await daysAfterNewestEvent(30 - 1 / 24))).toEqual({
      events: 0,
      deliveries: 0,
    });
    expect(await counts()).toEqual(before);

    expect(await purgeOldWebhookEvents(t.deps, await daysAfterNewestEvent(30 + 1 / 24 / 60))).toEqual({
      events: 2,
      deliveries: 2,
    });
    expect(await counts()).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect(await deliveries()).toEqual([]);
    const gone = await t.request({
      method: 'GET',
      url: `/webhook-subscriptions/${sub}/deliveries/${failed}/attempts`,
      merchantAccountId: m,
    });
    expect(gone.statusCode).toBe(404);
    const retry = await t.request({
      method: 'POST',
      url: `/webhook-subscriptions/${sub}/deliveries/${failed}/retry`,
      merchantAccountId: m,
    });
    expect(retry.statusCode).toBe(404);
    expect(RECURRING.find((r) => r.job.name === 'purge-webhook-events')?.everyMs).toBe(3600_000);
  });

  it('purges every merchant account, batch after batch, and leaves younger events', async () => {
    const other = await subscribedAccount();
    for (let i = 0; i < 5; i++) await emit(m, `tx-${i}`);
    for (let i = 0; i < 3; i++) await emit(other.m, `tx-${i}`);
    await drain();
    const purged = await purgeOldWebhookEvents(t.deps, await daysAfterNewestEvent(31), 2);
    expect(purged.events).toBeGreaterThanOrEqual(8);
    expect(await counts(m)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect(await counts(other.m)).toEqual({ events: 0, deliveries: 0, attempts: 0 });

    await emit(m, 'tx-new');
    await drain();
    await t.deps.queue.enqueue(t.deps.db, 'purge-webhook-events', {});
    await drain();
    expect(await counts(m)).toMatchObject({ events: 1, deliveries: 1 });
  });
});

describe('errors', () => {
  it('keeps an old event whose delivery is still pending, until the delivery ends', async () => {
    await emit(m, 'tx-waiting');
    // No worker ran: the delivery is still pending 40 days on.
    const later = await daysAfterNewestEvent(40);
    await purgeOldWebhookEvents(t.deps, later);
    expect(await counts()).toEqual({ events: 1, deliveries: 1, attempts: 0 });
    await drain();
    expect((await deliveries())[0]!.status).toBe('succeeded');
    await purgeOldWebhookEvents(t.deps, later);
    expect(await counts()).toEqual({ events: 0, deliveries: 0, attempts: 0 });
  });

  // The purge's statements one by one, each committed on its own (as under READ COMMITTED inside
  // its transaction), with a retry committed between them: both interleavings, on either database.
  /** What a purge 31 days after the newest event finds first: its cutoff (retention 30) a day after that event. */
  const purgeableOn31stDay = async () =>
    repo.findFinishedEventsBefore(t.deps.db, uuidv7Floor((await daysAfterNewestEvent(1)).getTime()), 10);
  const retryOf = (id: string) =>
    t.request({ method: 'POST', url: `/webhook-subscriptions/${sub}/deliveries/${id}/retry`, merchantAccountId: m });

  it('a delivery sent again after the purge found its event stays pending, and its event stays', async () => {
    const failed = await failedDelivery(m, 'tx-retried');
    const events = await purgeableOn31stDay();
    expect(events.filter((e) => e.merchant_account_id === m)).toHaveLength(1);
    expect((await retryOf(failed)).statusCode).toBe(200);
    await repo.deleteEndedDeliveries(t.deps.db, events);
    await repo.deleteEventsWithoutDeliveries(t.deps.db, events);
    expect(await counts()).toEqual({ events: 1, deliveries: 1, attempts: 1 });
    await drain();
    expect((await deliveries()).map((d) => d.status)).toEqual(['succeeded']);
  });

  it('a delivery the purge deleted first is 404 to the retry, and its event goes', async () => {
    const failed = await failedDelivery(m, 'tx-purged');
    const events = await purgeableOn31stDay();
    await repo.deleteEndedDeliveries(t.deps.db, events);
    expect((await retryOf(failed)).statusCode).toBe(404);
    await repo.deleteEventsWithoutDeliveries(t.deps.db, events);
    expect(await counts()).toEqual({ events: 0, deliveries: 0, attempts: 0 });
  });

  it('two purges at once delete each event once, and a retry racing them ends one way or the other', async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await failedDelivery(m, `tx-race-${i}`));
    const at = await daysAfterNewestEvent(31);
    const [first, second, ...answers] = await Promise.all([
      purgeOldWebhookEvents(t.deps, at, 1),
      purgeOldWebhookEvents(t.deps, at, 1),
      ...ids.map(retryOf),
    ]);
    for (const a of answers) expect([200, 404], a.body).toContain(a.statusCode);
    const retried = answers.filter((a) => a.statusCode === 200).length;
    expect(await counts()).toMatchObject({ events: retried, deliveries: retried });
    expect(first.events + second.events).toBeGreaterThanOrEqual(6 - retried);
    expect((await deliveries()).every((d) => d.status === 'pending')).toBe(true);
  });
});
