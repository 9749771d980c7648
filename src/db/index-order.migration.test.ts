import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationDatabases } from '../../test/helpers/migration-database.ts';
import type { DbHandle } from './client.ts';
import { listMigrations, migrate } from './migrate.ts';

/**
 * 0081 (decision 0162) makes every time-ordered index ascending: a DESC index splits its pages
 * 50:50 where new rows go and writes about four times the WAL at each split. Newest-first pages
 * read the ascending index backward.
 */
const databases = migrationDatabases('index-order');
afterAll(() => databases.closeAll());
type Db = DbHandle['db'];

/** Every index of the schema with its definition, schema name left out. */
const definitions = async (db: Db) =>
  new Map(
    (
      await sql<{ name: string; definition: string }>`SELECT i.relname AS name,
          replace(pg_get_indexdef(i.oid), current_schema() || '.', '') AS definition
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE i.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
        ORDER BY 1`.execute(db)
    ).rows.map((r) => [r.name, r.definition]),
  );

/** Indexes with a column declared DESC (bit 0 of pg_index.indoption). */
const descending = async (db: Db) =>
  (
    await sql<{ name: string }>`SELECT x.indexrelid::regclass::text AS name FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      WHERE i.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
        AND EXISTS (SELECT 1 FROM unnest(x.indoption::int2[]) AS o WHERE o & 1 = 1)
      ORDER BY 1`.execute(db)
  ).rows.map((r) => r.name);

/** The plan of a newest-first page with sequential scans and sorts made a last resort. */
const planOf = (db: Db, query: string) =>
  db.transaction().execute(async (tx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(tx);
    await sql`SET LOCAL enable_sort = off`.execute(tx);
    await sql`SET LOCAL enable_incremental_sort = off`.execute(tx);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${sql.raw(query)}`.execute(tx);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });

describe('happy', () => {
  it('0081 drops DESC from every index and changes nothing else of them', { timeout: 120_000 }, async () => {
    const { db } = await databases.before('0081');
    const before = await definitions(db);
    const wereDescending = await descending(db);
    expect(wereDescending.length).toBeGreaterThan(40);

    expect(
      await migrate(
        db,
        listMigrations().filter((m) => m.version < '0082'),
      ),
    ).toEqual(['0081_time_ordered_indexes_ascending']);
    const after = await definitions(db);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [name, definition] of before)
      expect(after.get(name), name).toBe(definition.replace(/ DESC(?=[,)])/g, ''));
    expect(await descending(db)).toEqual([]);
  });

  it('newest-first pages read the ascending indexes backward, with no sort', { timeout: 120_000 }, async () => {
    const { db } = await databases.before('9999');
    const pages: Array<[string, string]> = [
      [
        'transactions',
        `SELECT amount FROM transactions WHERE merchant_account_id = 'a' AND intent_outcome IS NOT NULL
           AND (updated_at, id) < (now(), '00000000-0000-0000-0000-000000000000')
         ORDER BY updated_at DESC, id DESC LIMIT 21`,
      ],
      [
        'transactions',
        `SELECT amount FROM transactions WHERE merchant_account_id = 'a' AND intent_outcome IS NOT NULL
           AND status = 'authorization_succeeded' ORDER BY updated_at DESC, id DESC LIMIT 21`,
      ],
      [
        'transactions',
        `SELECT amount FROM transactions WHERE merchant_account_id = 'a' AND intent_outcome IS NULL
         ORDER BY updated_at DESC, id DESC LIMIT 21`,
      ],
      [
        'audit_logs',
        `SELECT resource_id FROM audit_logs WHERE merchant_account_id = 'a' AND action = 'created'
         ORDER BY created_at DESC, id DESC LIMIT 21`,
      ],
      [
        'webhook_deliveries',
        `SELECT status FROM webhook_deliveries WHERE merchant_account_id = 'a'
           AND subscription_id = '00000000-0000-0000-0000-000000000000' ORDER BY created_at DESC, id DESC LIMIT 21`,
      ],
    ];
    // Which of a table's indexes the planner picks on empty tables is its choice (the plan tests
    // with data check that); the order must come from reading one backward.
    for (const [table, query] of pages) {
      const plan = await planOf(db, query);
      expect(plan, query).toMatch(new RegExp(`Index Scan Backward using ${table}_\\w+ on ${table}`));
      expect(plan, query).not.toMatch(/Sort|Seq Scan/);
    }
  });
});

describe('sad', () => {
  it('no migration declares an index DESC (0081 and decision 0162: ascending, read backward)', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databases.before('9999');
    expect(await descending(db)).toEqual([]);
  });
});
