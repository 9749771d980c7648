import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { uuidv7Floor } from '../../lib/ids.ts';
import {
  deleteEndedDeliveriesQuery,
  deleteEventsWithoutDeliveriesQuery,
  finishedEventsBeforeQuery,
} from './events-retention.repo.ts';
import { PURGE_BATCH } from './events-retention.service.ts';

/**
 * The webhook events' purge (decision 0161) finds each account's old events by their primary key
 * (UUIDv7 ids: older means lower) and their deliveries by the (event, subscription) key, never by
 * reading a table whole (PostgreSQL only: PGlite plans are not representative).
 */

const DAY = 24 * 3600 * 1000;
const ACCOUNTS = 5;
const EVENTS = 40_000;
let t: TestApp;

beforeAll(async () => {
  if (!usesPostgres()) return;
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  for (let a = 0; a < ACCOUNTS; a++) {
    const account = await createMerchantAccount(t.deps);
    const subscription = (await subscribeToEvents(t, account)).id;
    // EVENTS events per account over the last 60 days, each delivered once.
    await sql`INSERT INTO events (merchant_account_id, id, kind, resource_type, resource_id, payload, created_at)
      SELECT ${account}, (lpad(to_hex(ms), 12, '0') || '7000' || substr(md5(n::text), 1, 16))::uuid,
        'transaction.updated', 'transaction', 'tx-' || n, '{}', to_timestamp(ms / 1000.0)
      FROM generate_series(1, ${EVENTS}::int) AS n,
        LATERAL (SELECT (extract(epoch FROM now()) * 1000)::bigint - n::bigint * ${Math.floor((60 * DAY) / EVENTS)}::bigint AS ms) AS t`.execute(
      t.deps.db,
    );
    await sql`INSERT INTO webhook_deliveries (merchant_account_id, id, subscription_id, event_id, resource_id, status, give_up_at, created_at, updated_at)
      SELECT merchant_account_id, gen_random_uuid(), ${subscription}, id, resource_id, 'succeeded', created_at, created_at, created_at
      FROM events WHERE merchant_account_id = ${account}`.execute(t.deps.db);
  }
  await sql`ANALYZE events`.execute(t.deps.db);
  await sql`ANALYZE webhook_deliveries`.execute(t.deps.db);
});
afterAll(async () => t?.close());

async function plan(query: RawBuilder<unknown>): Promise<string> {
  const rows = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${query}`.execute(t.deps.db);
  return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe.skipIf(!usesPostgres())('happy', () => {
  it('finds a batch of old events by the events primary key and the deliveries key', async () => {
    const text = await plan(finishedEventsBeforeQuery(uuidv7Floor(Date.now() - 30 * DAY), PURGE_BATCH));
    // The pending deliveries are found by their own partial index (webhook_deliveries_order_idx) or
    // by the (event, subscription) key.
    expect(text).toContain('Index Only Scan using events_pkey on events');
    expect(text).toMatch(/using webhook_deliveries_(order_idx|merchant_account_id_event_id_subscription_id_key)/);
    expect(text).not.toMatch(/Seq Scan on (events|webhook_deliveries)\b/);
  });

  it("deletes a batch's deliveries (and their attempts) and events through the same keys", async () => {
    const { rows } = await finishedEventsBeforeQuery(uuidv7Floor(Date.now() - 30 * DAY), PURGE_BATCH).execute(
      t.deps.db,
    );
    expect(rows.length).toBe(PURGE_BATCH);
    const deliveries = await plan(deleteEndedDeliveriesQuery(rows));
    expect(deliveries).toContain('webhook_deliveries_merchant_account_id_event_id_subscripti');
    expect(deliveries).not.toMatch(/Seq Scan on webhook_deliveries\b/);
    const events = await plan(deleteEventsWithoutDeliveriesQuery(rows));
    expect(events).toContain('events_pkey');
    expect(events).not.toMatch(/Seq Scan on (events|webhook_deliveries)\b/);
    // The attempts go by ON DELETE CASCADE, which finds them by their delivery.
    const cascade = await sql<{ indexdef: string }>`
      SELECT indexdef FROM pg_indexes WHERE tablename = 'webhook_delivery_attempts' AND schemaname = current_schema()`.execute(
      t.deps.db,
    );
    expect(cascade.rows.map((r) => r.indexdef).join('\n')).toMatch(/\(merchant_account_id, delivery_id/);
  });
});
