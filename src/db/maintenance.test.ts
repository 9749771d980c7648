import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Runtime } from '../deps.ts';
import { analyzeGrownTables, statisticsLeftToUs, vacuumDatabase } from './maintenance.ts';

/** Upkeep for embedded PGlite, which has no autovacuum (the statements are plain SQL: both databases run them). */
let runtime: Runtime;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
  await sql`create table mt_grown (id int primary key, note text)`.execute(runtime.deps.db);
});
afterAll(async () => dispose?.());

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
    expect(await analyzeGrownTables(db)).not.toContain('mt_grown');
    await sql`insert into mt_grown select g, repeat('x', 200) from generate_series(1, 2000) g`.execute(db);
    expect(await relpages()).toBe(0);
    expect(await analyzeGrownTables(db)).toContain('mt_grown');
    expect(await relpages()).toBeGreaterThan(8);
    expect(await analyzeGrownTables(db)).not.toContain('mt_grown');
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
    await vacuumDatabase(db);
    const stats = await sql<{ count: number }>`select count(*)::int as count from mt_grown`.execute(db);
    expect(stats.rows[0]!.count).toBe(1000);
  });
});
