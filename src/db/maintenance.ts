import { sql } from 'kysely';
import type { Executor } from './transaction.ts';

/**
 * Upkeep that PostgreSQL's autovacuum does on a server, and nothing does on embedded PGlite (one
 * backend, no autovacuum launcher): without it PGlite never learns its tables' statistics, so the
 * plans it caches (the foreign key checks' among them) stay the ones chosen when the tables were
 * empty, and dead row versions pile up. Run by the *-embedded-database jobs.
 */

/**
 * Whether the planner's statistics are left to the server itself: always on embedded PGlite, and on
 * a PostgreSQL server whose autovacuum is off (nothing else would ANALYZE the tables there, and the
 * plans kept for prepared statements and foreign key checks would stay those of empty tables).
 */
export async function statisticsLeftToUs(db: Executor, kind: 'pglite' | 'postgres'): Promise<boolean> {
  if (kind === 'pglite') return true;
  const { rows } = await sql<{ autovacuum: string }>`select current_setting('autovacuum') as autovacuum`.execute(db);
  return rows[0]?.autovacuum === 'off';
}

/** A table counts as grown when it has this many more pages than at its last ANALYZE (and at least 8). */
const GROWTH = 1.2;
const MIN_PAGES = 8;

/** ANALYZEs the tables of the current schema that grew since their last ANALYZE or VACUUM; returns their names. */
export async function analyzeGrownTables(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string; analyzed_pages: number; pages: number }>`
    select c.relname as name, c.relpages as analyzed_pages,
           (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind = 'r' and n.nspname = current_schema()`.execute(db);
  const grown = rows.filter((r) => r.pages >= MIN_PAGES && r.pages > r.analyzed_pages * GROWTH).map((r) => r.name);
  for (const name of grown) await sql`analyze ${sql.id(name)}`.execute(db);
  return grown;
}

/** VACUUM (ANALYZE) of the whole database: removes dead row versions (not inside a transaction). */
export async function vacuumDatabase(db: Executor): Promise<void> {
  await sql`vacuum (analyze)`.execute(db);
}
