import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { SharedVelocityCounters } from './velocity-shared-counters.ts';
import { SoleWriterCounters } from './velocity-sole-writer.ts';
import { VELOCITY_BUCKET_MS, bucketOf, windowStartOf } from './velocity-window.ts';

/**
 * Embedded PGlite's sole writer (decision 0146) on a real database: the counts live in
 * velocity_journal only, a row per account, minute and write; repeated minutes are compacted; a
 * restart reads the counts back, a crash loses at most what was not yet written.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ATTEMPTS = { measure: 'attempts' as const, windowMinutes: 60 };
const CARDS = { measure: 'distinct_cards' as const, windowMinutes: 60 };
const DECLINES = { measure: 'declines' as const, windowMinutes: 60 };
const attempt = (card: string | null = null) => ({ currency: 'USD', amount: 100, card, attempts: 1, declines: 0 });
const T0 = Date.UTC(2026, 0, 1, 12, 0, 5);

/** The account's journal rows per minute (minutes from T0's). */
async function journal(m: string): Promise<Record<number, number>> {
  const { rows } = await sql<{ bucket_ms: number }>`
    SELECT (extract(epoch FROM bucket_start) * 1000)::float8 AS bucket_ms FROM velocity_journal
    WHERE merchant_account_id = ${m}`.execute(t.deps.db);
  const perMinute: Record<number, number> = {};
  for (const row of rows) {
    const minute = Math.round((row.bucket_ms - (T0 - 5_000)) / VELOCITY_BUCKET_MS);
    perMinute[minute] = (perMinute[minute] ?? 0) + 1;
  }
  return perMinute;
}
const countsRows = async (m: string) =>
  (await sql`SELECT 1 FROM velocity_counts WHERE merchant_account_id = ${m}`.execute(t.deps.db)).rows.length;

describe('SoleWriterCounters', () => {
  it('journals a row per account, minute and write (no row per cell), reads nothing back, and a restart reads the counts', async () => {
    const m = await createMerchantAccount(t.deps);
    let now = T0;
    const sole = new SoleWriterCounters(t.deps.db, { now: () => now });
    await sole.prepare(m, 60);
    for (let i = 0; i < 30; i++) sole.record(m, ['ip', `card${i % 5}`], attempt(`card${i % 5}`));
    await sole.sync();
    now += 10_000;
    for (let i = 0; i < 5; i++) sole.record(m, ['ip'], attempt(`card${i}`));
    await sole.sync();
    expect(await journal(m)).toEqual({ 0: 2 });
    expect(await countsRows(m)).toBe(0);
    // Another writer's change is not read: on PGlite no other process can open the data directory.
    const other = new SharedVelocityCounters(t.deps.db, { now: () => now });
    await other.prepare(m, 60);
    other.record(m, ['ip'], attempt('elsewhere'));
    await other.close();
    expect(sole.count(m, 'ip', ATTEMPTS, null)).toBe(35);
    now += VELOCITY_BUCKET_MS;
    sole.record(m, ['ip'], attempt('card9'));
    await sole.close();
    expect(sole.count(m, 'ip', CARDS, null)).toBe(6);
    const restarted = new SoleWriterCounters(t.deps.db, { now: () => now });
    await restarted.prepare(m, 60);
    // velocity_counts is read too (cells written there before decision 0146): the other writer's attempt.
    expect(restarted.count(m, 'ip', ATTEMPTS, null)).toBe(37);
    expect(restarted.count(m, 'ip', CARDS, null)).toBe(7);
    expect(restarted.count(m, 'card3', ATTEMPTS, null)).toBe(6);
    expect(restarted.count(m, 'ip', { measure: 'attempts', windowMinutes: 1 }, null)).toBe(1);
  });

  it('loses at most what was not yet written when the process dies without closing', async () => {
    const m = await createMerchantAccount(t.deps);
    let now = T0;
    const crashed = new SoleWriterCounters(t.deps.db, { now: () => now });
    await crashed.prepare(m, 60);
    for (let i = 0; i < 8; i++) crashed.record(m, ['ip'], attempt(`card${i}`));
    await crashed.sync();
    now += 9_000;
    crashed.record(m, ['ip'], attempt('lost'));
    // Dies here: its last record was never written.
    const next = new SoleWriterCounters(t.deps.db, { now: () => now });
    await next.prepare(m, 60);
    expect(next.count(m, 'ip', ATTEMPTS, null)).toBe(8);
    expect(next.count(m, 'ip', CARDS, null)).toBe(8);
    next.record(m, ['ip'], { ...attempt(null), attempts: 0, declines: 1 });
    await next.close();
    const last = new SoleWriterCounters(t.deps.db, { now: () => now });
    await last.prepare(m, 60);
    expect(last.count(m, 'ip', DECLINES, null)).toBe(1);
    expect(last.count(m, 'ip', ATTEMPTS, null)).toBe(8);
  });

  it('compacts a minute that is over when its rows repeat its keys, not one whose keys are new in each write; a restart reads the same counts', async () => {
    const m = await createMerchantAccount(t.deps);
    let now = T0;
    const sole = new SoleWriterCounters(t.deps.db, { now: () => now });
    await sole.prepare(m, 60);
    for (let write = 0; write < 5; write++) {
      // The same address in every write; a new card key in each.
      for (let i = 0; i < 4; i++) sole.record(m, ['ip', `card-${write}-${i}`], attempt(`c${write}${i}`));
      await sole.sync();
      now += 10_000;
    }
    expect(await journal(m)).toEqual({ 0: 5 });
    const before = [sole.count(m, 'ip', ATTEMPTS, null), sole.count(m, 'ip', CARDS, null)];
    // 20 lines naming 40 key MACs, 21 cells: not twice a compacted row's length, so the minute stays as written.
    now += 10_000;
    await sole.sync();
    expect(await journal(m)).toEqual({ 0: 5 });
    for (let write = 0; write < 3; write++) {
      for (let i = 0; i < 10; i++) sole.record(m, ['ip'], { ...attempt(`d${i}`), amount: 7 });
      if (write < 2) await sole.sync();
      now += 20_000;
    }
    // Minute 1 (30 lines of one key: one cell), over, is compacted with its last lines into one row.
    await sole.sync();
    expect(await journal(m)).toEqual({ 0: 5, 1: 1 });
    const expected = [
      before[0]! + 30,
      30,
      sole.count(m, 'ip', { measure: 'amount', windowMinutes: 60, currency: 'USD' }, null),
    ];
    expect([sole.count(m, 'ip', ATTEMPTS, null), sole.count(m, 'ip', CARDS, null)]).toEqual(expected.slice(0, 2));
    expect(before).toEqual([20, 20]);
    const restarted = new SoleWriterCounters(t.deps.db, { now: () => now });
    await restarted.prepare(m, 60);
    expect([
      restarted.count(m, 'ip', ATTEMPTS, null),
      restarted.count(m, 'ip', CARDS, null),
      restarted.count(m, 'ip', { measure: 'amount', windowMinutes: 60, currency: 'USD' }, null),
    ]).toEqual(expected);
    expect(expected[2]).toBe(20 * 100 + 30 * 7);
  });

  it('never loses or doubles a written count across writes, minutes, compactions, crashes and restarts (property)', async () => {
    const step = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          op: fc.constant('record' as const),
          keys: fc.constantFrom<string[]>(['k0'], ['k1'], ['k0', 'k1'], ['k0', 'k1', 'k2']),
          card: fc.constantFrom('c0', 'c1', 'c2'),
          declined: fc.boolean(),
          // Bursts of the same entry make minutes worth compacting.
          times: fc.integer({ min: 1, max: 8 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('sync' as const) }) },
      {
        weight: 2,
        arbitrary: fc.record({ op: fc.constant('wait' as const), seconds: fc.integer({ min: 1, max: 70 }) }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('crash' as const, 'close' as const) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 50 }), async (steps) => {
        const m = await createMerchantAccount(t.deps);
        let now = T0;
        const open = async () => {
          const counters = new SoleWriterCounters(t.deps.db, { now: () => now });
          await counters.prepare(m, 60);
          return counters;
        };
        let counters = await open();
        // The model: each record's keys, card, minute; written or not.
        const records: Array<{ keys: string[]; card: string; declined: boolean; at: number; written: boolean }> = [];
        const expectCounts = () => {
          for (const key of ['k0', 'k1', 'k2']) {
            const mine = records.filter((r) => r.keys.includes(key) && bucketOf(r.at) >= windowStartOf(now, 60));
            expect(counters.count(m, key, ATTEMPTS, null)).toBe(mine.length);
            expect(counters.count(m, key, DECLINES, null)).toBe(mine.filter((r) => r.declined).length);
            expect(counters.count(m, key, CARDS, null)).toBe(new Set(mine.map((r) => r.card)).size);
          }
        };
        for (const s of steps) {
          if (s.op === 'record')
            for (let i = 0; i < s.times; i++) {
              counters.record(m, s.keys, { ...attempt(s.card), declines: s.declined ? 1 : 0 });
              records.push({ keys: s.keys, card: s.card, declined: s.declined, at: now, written: false });
            }
          else if (s.op === 'sync') {
            await counters.sync();
            for (const r of records) r.written = true;
          } else if (s.op === 'wait') now += s.seconds * 1_000;
          else {
            if (s.op === 'close') await counters.close();
            for (let i = records.length - 1; i >= 0; i--)
              if (!records[i]!.written && s.op === 'crash') records.splice(i, 1);
            for (const r of records) r.written = true;
            counters = await open();
          }
          expectCounts();
        }
        await counters.close();
        counters = await open();
        expectCounts();
      }),
      { numRuns: 40 },
    );
  });

  it('counts each line once when a first read of an account runs beside a write', async () => {
    for (const order of ['write first', 'read first', 'write held until the read is done'] as const) {
      const m = await createMerchantAccount(t.deps);
      const now = T0;
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      // The write's transaction waits for `held` (the read goes through the db it is given).
      const db =
        order === 'write held until the read is done'
          ? new Proxy(t.deps.db, {
              get: (target, name, receiver) =>
                name === 'transaction'
                  ? () => ({
                      execute: async (fn: never) => {
                        await held;
                        return target.transaction().execute(fn);
                      },
                    })
                  : Reflect.get(target, name, receiver),
            })
          : t.deps.db;
      const sole = new SoleWriterCounters(db, { now: () => now });
      // Recorded before the account's first read (another request's), then written while it reads.
      for (let i = 0; i < 3; i++) sole.record(m, ['ip'], attempt(`c${i}`));
      const read = () => sole.prepare(m, 60, t.deps.db);
      const write = sole.sync();
      await (order === 'read first'
        ? Promise.all([read(), write])
        : order === 'write first'
          ? Promise.all([write, read()])
          : read());
      release();
      await write;
      sole.record(m, ['ip'], attempt('c9'));
      expect(sole.count(m, 'ip', ATTEMPTS, null)).toBe(4);
      await sole.close();
      const restarted = new SoleWriterCounters(t.deps.db, { now: () => now });
      await restarted.prepare(m, 60);
      expect(restarted.count(m, 'ip', ATTEMPTS, null)).toBe(4);
      expect(restarted.count(m, 'ip', CARDS, null)).toBe(4);
    }
  });

  it('reads the older minutes when a longer window appears, and the purge deletes rows past 24 hours', async () => {
    const m = await createMerchantAccount(t.deps);
    let now = T0;
    const first = new SoleWriterCounters(t.deps.db, { now: () => now });
    await first.prepare(m, 60);
    first.record(m, ['ip'], attempt());
    now += 10 * VELOCITY_BUCKET_MS;
    first.record(m, ['ip'], attempt());
    await first.close();
    const later = new SoleWriterCounters(t.deps.db, { now: () => now });
    await later.prepare(m, 5);
    later.record(m, ['ip'], attempt());
    expect(later.count(m, 'ip', { measure: 'attempts', windowMinutes: 15 }, null)).toBe(2);
    await Promise.all([later.sync(), later.prepare(m, 15)]);
    expect(later.count(m, 'ip', { measure: 'attempts', windowMinutes: 15 }, null)).toBe(3);
    await later.close();
    const recent = new SoleWriterCounters(t.deps.db);
    await recent.prepare(m, 1);
    recent.record(m, ['recent'], attempt());
    await recent.close();
    await t.deps.queue.enqueue(t.deps.db, 'purge-velocity-counts', {});
    await t.deps.queue.drain(t.deps);
    // Minutes of 1 January 2026 are past the longest window (24 h) of the job's real clock; this minute's stay.
    expect(Object.keys(await journal(m))).toHaveLength(1);
  });
});
