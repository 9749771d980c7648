import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Runtime } from '../deps.ts';
import { analyzeGrownTables, EMBEDDED_STATISTICS_TARGET, statisticsLeftToUs, vacuumDatabase } from './maintenance.ts';

/** Upkeep for embedded PGlite, which has no autovacuum (the statements are plain SQL: both databases run them). */
let runtime: Runtime;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
  await sql`create table mt_grown (id int primary key, note text)`.execute(runtime.deps.db);
});
afterAll(async () => dispose?.());

/** How many bounds the last ANALYZE kept in mt_grown.id's histogram: the statistics target plus one. */
const histogramBounds = async () =>
  (
    await sql<{ bounds: number | null }>`select array_length(histogram_bounds::text::int[], 1) as bounds from pg_stats
      where schemaname = current_schema() and tablename = 'mt_grown' and attname = 'id'`.execute(runtime.deps.db)
  ).rows[0]?.bounds ?? null;

const relpages = async () =>
  (
    await sql<{
      relpages: number;
    }>`select relpages from pg_class where relname = 'mt_grown' and relnamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(
      runtime.deps.db,
    )
  ).rows[0]!.relpages;

describe('happy', () => {
  it('analyzes a table once it has grown, and not again until it grows more', async () => {
    const db = runtime.deps.db;
    expect(await analyzeGrownTables(db, runtime.deps.dbKind)).not.toContain('mt_grown');
    await sql`insert into mt_grown select g, repeat('x', 200) from generate_series(1, 2000) g`.execute(db);
    expect(await relpages()).toBe(0);
    expect(await analyzeGrownTables(db, runtime.deps.dbKind)).toContain('mt_grown');
    expect(await relpages()).toBeGreaterThan(8);
    expect(await analyzeGrownTables(db, runtime.deps.dbKind)).not.toContain('mt_grown');
  });

  it('keeps statistics itself on PGlite, and on a PostgreSQL server only when its autovacuum is off', async () => {
    const db = runtime.deps.db;
    const setting = (await sql<{ value: string }>`select current_setting('autovacuum') as value`.execute(db)).rows[0]!
      .value;
    expect(await statisticsLeftToUs(db, 'pglite')).toBe(true);
    expect(await statisticsLeftToUs(db, 'postgres')).toBe(setting === 'off');
  });

  it('vacuums the database', async () => {
    const db = runtime.deps.db;
    await sql`delete from mt_grown where id % 2 = 0`.execute(db);
    expect(await vacuumDatabase(db, runtime.deps.dbKind)).toBeGreaterThan(1);
    const stats = await sql<{ count: number }>`select count(*)::int as count from mt_grown`.execute(db);
    expect(stats.rows[0]!.count).toBe(1000);
  });

  // Decision 0160: on PGlite every request waits behind the statement that holds the only session.
  it('analyzes with a small sample on PGlite, with the default on a PostgreSQL server', async () => {
    const db = runtime.deps.db;
    await sql`insert into mt_grown select g, 'y' from generate_series(100001, 130000) g`.execute(db);
    expect(await analyzeGrownTables(db, runtime.deps.dbKind)).toContain('mt_grown');
    expect(await histogramBounds()).toBe(runtime.deps.dbKind === 'pglite' ? EMBEDDED_STATISTICS_TARGET + 1 : 101);
    // The target is the analyze's own: the session's setting is untouched.
    const target = await sql<{ value: string }>`select current_setting('default_statistics_target') as value`.execute(
      db,
    );
    expect(target.rows[0]!.value).toBe('100');
  });

  it('vacuums a table at a time, so that a request runs before the whole database is done', async () => {
    const db = runtime.deps.db;
    let vacuumed = false;
    const vacuum = vacuumDatabase(db, runtime.deps.dbKind).then(() => (vacuumed = true));
    // Issued once the vacuum's first statement holds the session: on PGlite it waits for that one only.
    await new Promise((resolve) => setImmediate(resolve));
    const before = await sql`select 1`.execute(db).then(() => !vacuumed);
    await vacuum;
    expect(before).toBe(true);
  });

  it('keeps no statistics for the JSON snapshots no query filters by (migration 0080)', async () => {
    const { rows } = await sql<{ table: string; column: string; target: number }>`
      select c.relname as table, a.attname as column, coalesce(a.attstattarget, -1)::int as target
      from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relname in ('transactions', 'transaction_history')
        and a.attname in ('actions', 'payment_method', 'more', 'metadata', 'three_d_secure', 'status')`.execute(
      runtime.deps.db,
    );
    const target = (table: string, column: string) =>
      rows.find((r) => r.table === table && r.column === column)?.target;
    expect(target('transactions', 'actions')).toBe(0);
    expect(target('transactions', 'payment_method')).toBe(0);
    expect(target('transaction_history', 'more')).toBe(0);
    // Filtered by: their statistics stay (-1, or null from PostgreSQL 17 on: the default target).
    expect(target('transactions', 'metadata')).toBe(-1);
    expect(target('transactions', 'three_d_secure')).toBe(-1);
    expect(target('transactions', 'status')).toBe(-1);
  });
});
