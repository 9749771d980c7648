import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { SharedVelocityCounters } from './velocity-shared-counters.ts';
import { VELOCITY_BUCKET_MS } from './velocity-window.ts';

/** The shared counters (PostgreSQL) on a real database: batched writes, everyone's changes read back, two processes adding up. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ATTEMPTS = { measure: 'attempts' as const, windowMinutes: 60 };
const CARDS = { measure: 'distinct_cards' as const, windowMinutes: 60 };
const attempt = (card: string | null = null) => ({ currency: 'USD', amount: 100, card, attempts: 1, declines: 0 });
const stored = async (m: string) =>
  (
    await sql<{ attempts: number }>`SELECT attempts FROM velocity_counts WHERE merchant_account_id = ${m}`.execute(
      t.deps.db,
    )
  ).rows.reduce((sum, r) => sum + r.attempts, 0);

describe('SharedVelocityCounters', () => {
  it('records in memory (no write per attempt), counts its own at once, writes them in one sync', async () => {
    const m = await createMerchantAccount(t.deps);
    const counters = new SharedVelocityCounters(t.deps.db);
    await counters.prepare(m, 60);
    for (let i = 0; i < 50; i++) counters.record(m, ['ip'], attempt(`card${i % 7}`));
    expect(await stored(m)).toBe(0);
    expect(counters.count(m, 'ip', ATTEMPTS, null)).toBe(50);
    expect(counters.count(m, 'ip', CARDS, null)).toBe(7);
    await counters.sync();
    expect(await stored(m)).toBe(50);
    // Written and read back: counted once, not twice.
    expect(counters.count(m, 'ip', ATTEMPTS, null)).toBe(50);
    expect(counters.count(m, 'ip', CARDS, null)).toBe(7);
    expect(counters.count(m, 'other', ATTEMPTS, null)).toBe(0);
  });

  it('never loses or doubles a count across the syncs of two processes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('record' as const),
              who: fc.integer({ min: 0, max: 1 }),
              n: fc.integer({ min: 1, max: 3 }),
            }),
            fc.record({ op: fc.constant('sync' as const), who: fc.integer({ min: 0, max: 1 }) }),
          ),
          { maxLength: 25 },
        ),
        async (steps) => {
          const m = await createMerchantAccount(t.deps);
          const processes = [new SharedVelocityCounters(t.deps.db), new SharedVelocityCounters(t.deps.db)];
          await Promise.all(processes.map((p) => p.prepare(m, 60)));
          const own = [0, 0];
          for (const step of steps) {
            const p = processes[step.who]!;
            if (step.op === 'record') {
              for (let i = 0; i < step.n; i++) p.record(m, ['key'], attempt());
              own[step.who]! += step.n;
            } else await p.sync();
            // Each sees its own at once, and never more than everyone recorded.
            for (const [i, q] of processes.entries()) {
              const seen = q.count(m, 'key', ATTEMPTS, null);
              expect(seen).toBeGreaterThanOrEqual(own[i]!);
              expect(seen).toBeLessThanOrEqual(own[0]! + own[1]!);
            }
          }
          // Once both have written and read: both see every count exactly once, as the table holds.
          await processes[0]!.sync();
          await processes[1]!.sync();
          await processes[0]!.sync();
          for (const q of processes) expect(q.count(m, 'key', ATTEMPTS, null)).toBe(own[0]! + own[1]!);
          expect(await stored(m)).toBe(own[0]! + own[1]!);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('merges card sets across processes (a card seen by both counts once) and survives a restart', async () => {
    const m = await createMerchantAccount(t.deps);
    const [a, b] = [new SharedVelocityCounters(t.deps.db), new SharedVelocityCounters(t.deps.db)];
    await Promise.all([a.prepare(m, 10), b.prepare(m, 10)]);
    a.record(m, ['ip'], attempt('x'));
    a.record(m, ['ip'], attempt('y'));
    b.record(m, ['ip'], attempt('y'));
    b.record(m, ['ip'], attempt('z'));
    await Promise.all([a.close(), b.close()]);
    const restarted = new SharedVelocityCounters(t.deps.db);
    await restarted.prepare(m, 10);
    expect(restarted.count(m, 'ip', { measure: 'distinct_cards', windowMinutes: 10 }, null)).toBe(3);
    expect(restarted.count(m, 'ip', { measure: 'attempts', windowMinutes: 10 }, null)).toBe(4);
  });

  it('counts only the buckets inside the window, reads older ones when a longer window appears, and the purge deletes those past 24 h', async () => {
    const m = await createMerchantAccount(t.deps);
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const first = new SharedVelocityCounters(t.deps.db, { now: () => now });
    await first.prepare(m, 60);
    first.record(m, ['ip'], attempt());
    now += 10 * VELOCITY_BUCKET_MS;
    first.record(m, ['ip'], attempt());
    await first.sync();
    expect(first.count(m, 'ip', { measure: 'attempts', windowMinutes: 11 }, null)).toBe(2);
    expect(first.count(m, 'ip', { measure: 'attempts', windowMinutes: 10 }, null)).toBe(1);
    // A process whose rules used a 5-minute window holds 5 minutes; a 15-minute rule reads the rest.
    const later = new SharedVelocityCounters(t.deps.db, { now: () => now });
    await later.prepare(m, 5);
    expect(later.count(m, 'ip', { measure: 'attempts', windowMinutes: 15 }, null)).toBe(1);
    await later.prepare(m, 15);
    expect(later.count(m, 'ip', { measure: 'attempts', windowMinutes: 15 }, null)).toBe(2);
    const recent = new SharedVelocityCounters(t.deps.db);
    await recent.prepare(m, 1);
    recent.record(m, ['recent'], attempt());
    await recent.sync();
    await t.deps.queue.enqueue(t.deps.db, 'purge-velocity-counts', {});
    await t.deps.queue.drain(t.deps);
    // Buckets of 1 January 2026 are past the longest window (24 h) of the job's real clock; this minute's stay.
    expect(
      (
        await sql<{ key_mac: string }>`SELECT key_mac FROM velocity_counts WHERE merchant_account_id = ${m}`.execute(
          t.deps.db,
        )
      ).rows,
    ).toEqual([{ key_mac: 'recent' }]);
  });

  it('keeps the counts when a write fails, and writes them with the next sync', async () => {
    const m = await createMerchantAccount(t.deps);
    const broken = {
      insertInto: () => {
        throw new Error('database away');
      },
    } as unknown as typeof t.deps.db;
    const warnings: string[] = [];
    const counters = new SharedVelocityCounters(broken, { log: { warn: (_o, msg) => warnings.push(msg ?? '') } });
    await counters.prepare(m, 60, t.deps.db);
    counters.record(m, ['ip'], attempt());
    await counters.sync();
    expect(warnings).toEqual(['velocity counts could not be written; kept for the next sync']);
    expect(counters.count(m, 'ip', ATTEMPTS, null)).toBe(1);
    Object.assign(counters as unknown as { db: unknown }, { db: t.deps.db });
    await counters.sync();
    expect(await stored(m)).toBe(1);
    expect(counters.count(m, 'ip', ATTEMPTS, null)).toBe(1);
  });
});
