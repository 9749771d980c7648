import { sql } from 'kysely';
import type { DbHandle } from './client.ts';
import type { Db } from './executor.ts';
import { nextTurn } from './session-lanes.ts';
import { withTransaction, type Executor } from './transaction.ts';

/**
 * Upkeep that PostgreSQL's autovacuum does on a server, and nothing does on embedded PGlite (one
 * backend, no autovacuum launcher): without it PGlite never learns its tables' statistics, so the
 * plans it caches (the foreign key checks' among them) stay the ones chosen when the tables were
 * empty, and dead row versions pile up. Run by the *-embedded-database jobs.
 *
 * On PGlite each statement holds the process's only session, and every request waits behind it
 * (decision 0160): each table is vacuumed and analyzed in a statement of its own, with a turn of
 * the event loop between tables (PGlite answers without I/O, so a chain of statements would
 * otherwise keep the requests that arrive meanwhile from being read at all), and PGlite's ANALYZE
 * reads a smaller sample (EMBEDDED_STATISTICS_TARGET).
 */

/** The database a process runs on (`DbHandle.kind`). */
type DbKind = DbHandle['kind'];

/**
 * PGlite's statistics target (PostgreSQL's default is 100): ANALYZE reads 300 rows per unit of it,
 * so 3,000 rows instead of 30,000. With 41,600 transactions, ANALYZE of `transactions` held PGlite's
 * session for 2.1 to 2.6 s at 100, 153 to 185 ms at 10, and 73 to 133 ms at 10 without statistics
 * for the JSON snapshots (migration 0080; decision 0160). Ten most common values and a ten-bucket
 * histogram per column are enough for the plans an embedded database chooses (an index or not);
 * the plan tests ANALYZE with the default and are unaffected.
 */
export const EMBEDDED_STATISTICS_TARGET = 10;

/**
 * Whether the planner's statistics are left to the server itself: always on embedded PGlite, and on
 * a PostgreSQL server whose autovacuum is off (nothing else would ANALYZE the tables there, and the
 * plans kept for prepared statements and foreign key checks would stay those of empty tables).
 */
export async function statisticsLeftToUs(db: Executor, kind: DbKind): Promise<boolean> {
  if (kind === 'pglite') return true;
  const { rows } = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(db);
  return rows[0]?.autovacuum === 'off';
}

/** A table counts as grown when it has this many more pages than at its last ANALYZE (and at least 8). */
const GROWTH = 1.2;
const MIN_PAGES = 8;

/** ANALYZEs one table: on PGlite with EMBEDDED_STATISTICS_TARGET, set for this statement's transaction only. */
export async function analyzeTable(db: Db, name: string, kind: DbKind): Promise<void> {
  if (kind === 'postgres') {
    await sql`analyze ${sql.id(name)}`.execute(db);
    return;
  }
  await withTransaction(db, async (tx) => {
    await sql`set local default_statistics_target = ${sql.lit(EMBEDDED_STATISTICS_TARGET)}`.execute(tx);
    await sql`analyze ${sql.id(name)}`.execute(tx);
  });
}

/** ANALYZEs the tables of the current schema that grew since their last ANALYZE or VACUUM; returns their names. */
export async function analyzeGrownTables(db: Db, kind: DbKind): Promise<string[]> {
  const { rows } = await sql<{ name: string; analyzed_pages: number; pages: number }>`
    select c.relname as name, c.relpages as analyzed_pages,
           (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname = current_schema()`.execute(db);
  const grown = rows.filter((r) => r.pages >= MIN_PAGES && r.pages > r.analyzed_pages * GROWTH).map((r) => r.name);
  for (const name of grown) {
    await nextTurn();
    await analyzeTable(db, name, kind);
  }
  return grown;
}

/**
 * VACUUM of the current schema's tables and of the system catalogs (which ANALYZE and temporary
 * tables churn), one table a statement (VACUUM runs outside a transaction), each followed by its
 * ANALYZE. Returns how many tables it vacuumed.
 */
export async function vacuumDatabase(db: Db, kind: DbKind): Promise<number> {
  const { rows } = await sql<{ schema: string; name: string }>`
    select n.nspname as schema, c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname in (current_schema(), 'pg_catalog')
    order by n.nspname = 'pg_catalog', c.relname`.execute(db);
  for (const { schema, name } of rows) {
    await nextTurn();
    if (schema === 'pg_catalog') await sql`vacuum (analyze) ${sql.id(schema, name)}`.execute(db);
    else {
      await sql`vacuum ${sql.id(schema, name)}`.execute(db);
      await analyzeTable(db, name, kind);
    }
  }
  return rows.length;
}
