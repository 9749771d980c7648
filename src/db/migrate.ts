import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from './client.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface Migration {
  version: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: file.replace(/\.sql$/, ''), sql: fs.readFileSync(path.join(dir, file), 'utf8') }));
}

/**
 * Applies pending migrations in one transaction. A transaction-level advisory lock, keyed by the
 * schema, makes processes that start together take turns: the first applies, the others then
 * find nothing left to do. Returns the versions applied.
 */
export async function migrate(db: Db, migrations: Migration[] = listMigrations()): Promise<string[]> {
  return db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':svc-migrations'))`.execute(tx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`.execute(tx);
    const done = await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(tx);
    const applied = new Set(done.rows.map((row) => row.version));
    const ran: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await sql.raw(migration.sql).execute(tx);
      await sql`INSERT INTO schema_migrations (version) VALUES (${migration.version})`.execute(tx);
      ran.push(migration.version);
    }
    return ran;
  });
}
