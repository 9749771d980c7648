import { sql } from 'kysely';
import { migrationDatabases } from '../../../test/helpers/migration-database.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../../db/client.ts';
import { migrate } from '../../db/migrate.ts';
import { insertMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';
import { SoleWriterCounters } from './velocity-sole-writer.ts';

/** Migration 0073 on a database holding journal rows of migration 0071: a row per minute in lines, the same counts. */
const databases = migrationDatabases('velocity-journal');
let handle: DbHandle;

beforeAll(async () => {
  handle = await databases.before('0073');
}, 120_000);

afterAll(() => databases.closeAll());

describe('happy', () => {
  it('splits the rows of 0071 into a row per minute, in lines, and a sole writer reads the same counts', {
    timeout: 120_000,
  }, async () => {
    const db = handle.db;
    await insertMerchantAccount(db, { id: 'old', display_name: 'old' });
    const minute = Date.UTC(2026, 0, 1, 12, 0, 0);
    const next = minute + 60_000;
    // [key MAC, currency, bucket ms, attempts, declines, amount, cards]: a row across two minutes, a row of one, an empty one.
    const rows = [
      [
        ['ip', 'USD', minute, 3, 1, 300, ['c1', 'c2']],
        ['ip', 'USD', next, 1, 0, 100, ['c3']],
      ],
      [['card', 'EUR', next, 2, 2, 0, []]],
      [],
    ];
    for (const [i, cells] of rows.entries())
      await sql`INSERT INTO velocity_journal (merchant_account_id, id, cells) VALUES ('old', ${`row${i}`}, ${JSON.stringify(cells)})`.execute(
        db,
      );
    expect(await migrate(db)).toContain('0073_velocity_journal_minutes');

    const migrated = await sql<{ id: string; bucket_ms: number; cells: string }>`
      SELECT id, (extract(epoch FROM bucket_start) * 1000)::float8 AS bucket_ms, cells FROM velocity_journal
      ORDER BY bucket_start, id`.execute(db);
    expect(migrated.rows).toEqual([
      { id: `row0-${minute}`, bucket_ms: minute, cells: 'ip\tUSD\t3\t1\t300\tc1,c2' },
      { id: `row0-${next}`, bucket_ms: next, cells: 'ip\tUSD\t1\t0\t100\tc3' },
      { id: `row1-${next}`, bucket_ms: next, cells: 'card\tEUR\t2\t2\t0\t' },
    ]);
    const counters = new SoleWriterCounters(db, { now: () => next + 30_000 });
    await counters.prepare('old', 60);
    const count = (key: string, measure: 'attempts' | 'declines' | 'distinct_cards') =>
      counters.count('old', key, { measure, windowMinutes: 60 }, null);
    expect([count('ip', 'attempts'), count('ip', 'declines'), count('ip', 'distinct_cards')]).toEqual([4, 1, 3]);
    expect(counters.count('old', 'ip', { measure: 'amount', windowMinutes: 60, currency: 'USD' }, null)).toBe(400);
    expect([count('card', 'attempts'), count('card', 'declines'), count('card', 'distinct_cards')]).toEqual([2, 2, 0]);
  });
});
