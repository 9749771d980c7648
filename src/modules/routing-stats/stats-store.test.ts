import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { BUCKET_MS } from './sliding-window.ts';
import { RoutingStats } from './stats-store.ts';

/** The shared statistics on a real database: batched writes, cached reads, several processes adding up. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const KEYS = ['currency=USD', '*'];
const rows = async (m: string) =>
  (
    await sql<{ dimension_key: string; successes: number; failures: number; errors: number }>`
      SELECT dimension_key, successes, failures, errors FROM routing_stats WHERE merchant_account_id = ${m} ORDER BY dimension_key`.execute(
      t.deps.db,
    )
  ).rows;

describe('RoutingStats', () => {
  it('records in memory (no write per outcome), reads its own outcomes at once, writes them in one flush', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = uuidv7();
    const stats = new RoutingStats(t.deps.db);
    for (let i = 0; i < 300; i++) stats.record(m, service, KEYS, i % 3 === 0 ? 'decline' : 'success');
    for (let i = 0; i < 4; i++) stats.record(m, service, KEYS, 'error');
    stats.record(m, service, KEYS, null);
    expect(await rows(m)).toEqual([]);
    expect((await stats.view(m, 60))(service, '*')).toEqual({ successes: 200, failures: 100, errors: 4 });
    await stats.flush();
    expect(await rows(m)).toEqual([
      { dimension_key: '*', successes: 200, failures: 100, errors: 4 },
      { dimension_key: 'currency=USD', successes: 200, failures: 100, errors: 4 },
    ]);
    // Written and cached before the write: counted once, not twice.
    expect((await stats.view(m, 60))(service, 'currency=USD')).toEqual({ successes: 200, failures: 100, errors: 4 });
    stats.invalidate();
    expect((await stats.view(m, 60))(service, 'currency=USD')).toEqual({ successes: 200, failures: 100, errors: 4 });
  });

  it('never counts an outcome twice when a load overlaps a write, and loads again after it', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = uuidv7();
    const stats = new RoutingStats(t.deps.db);
    for (let i = 0; i < 3; i++) stats.record(m, service, KEYS, 'success');
    const writing = stats.flush();
    await Promise.resolve();
    await Promise.resolve();
    const during = await stats.view(m, 60);
    await writing;
    // The load may or may not have seen the write it overlapped: the view leaves the batch out.
    expect(during(service, '*')?.successes ?? 0).toBeLessThanOrEqual(3);
    expect((await stats.view(m, 60))(service, '*')).toEqual({ successes: 3, failures: 0, errors: 0 });
  });

  it('survives a restart, and the counts of two processes add up', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = uuidv7();
    const first = new RoutingStats(t.deps.db);
    const second = new RoutingStats(t.deps.db);
    for (let i = 0; i < 7; i++) first.record(m, service, KEYS, 'success');
    for (let i = 0; i < 5; i++) second.record(m, service, KEYS, 'decline');
    await Promise.all([first.close(), second.close()]);
    const restarted = new RoutingStats(t.deps.db);
    expect((await restarted.view(m, 60))(service, '*')).toEqual({ successes: 7, failures: 5, errors: 0 });
    expect((await restarted.view(m, 60))(uuidv7(), '*')).toBeUndefined();
  });

  it('counts only the buckets inside the window, and the purge job deletes those past the longest window', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = uuidv7();
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const stats = new RoutingStats(t.deps.db, { now: () => now, ttlMs: 0 });
    stats.record(m, service, KEYS, 'decline');
    now += 10 * BUCKET_MS;
    stats.record(m, service, KEYS, 'success');
    await stats.flush();
    expect((await stats.view(m, 11))(service, '*')).toEqual({ successes: 1, failures: 1, errors: 0 });
    expect((await stats.view(m, 10))(service, '*')).toEqual({ successes: 1, failures: 0, errors: 0 });
    const recent = new RoutingStats(t.deps.db);
    recent.record(m, service, ['recent'], 'success');
    await recent.flush();
    await t.deps.queue.enqueue(t.deps.db, 'purge-routing-stats', {});
    await t.deps.queue.drain(t.deps);
    // Buckets of 1 January 2026 are past the longest window (24 h) of the job's real clock; this minute's stay.
    expect(await rows(m)).toEqual([{ dimension_key: 'recent', successes: 1, failures: 0, errors: 0 }]);
  });

  it('keeps the counts when a write fails, and writes them with the next flush', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = uuidv7();
    const broken = {
      insertInto: () => {
        throw new Error('database away');
      },
    } as unknown as typeof t.deps.db;
    const warnings: string[] = [];
    const stats = new RoutingStats(broken, { log: { warn: (_o, msg) => warnings.push(msg ?? '') } });
    stats.record(m, service, KEYS, 'success');
    await stats.flush();
    expect(warnings).toEqual(['routing statistics could not be written; kept for the next flush']);
    // The database is back.
    Object.assign(stats as unknown as { db: unknown }, { db: t.deps.db });
    await stats.flush();
    expect(await rows(m)).toEqual([
      { dimension_key: '*', successes: 1, failures: 0, errors: 0 },
      { dimension_key: 'currency=USD', successes: 1, failures: 0, errors: 0 },
    ]);
  });
});
