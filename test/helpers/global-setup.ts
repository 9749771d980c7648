import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { listMigrations } from '../../src/db/migrate.ts';

/**
 * Runs once before all test files. On PGlite it migrates one database and dumps its data
 * directory, which every test file then loads (about 1 s instead of initdb + migrations). With
 * TEST_DATABASE_URL it checks that the server answers; each file then works in its own schema.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
    project.provide('pgliteDump', '');
    return async () => undefined;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const db = new PGlite();
  await db.waitReady;
  await db.exec(
    'CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const migration of listMigrations()) {
    await db.exec(migration.sql);
    await db.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
  }
  const dump = await db.dumpDataDir('none');
  await db.close();
  const file = path.join(dir, 'migrated.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteDump', file);
  return async () => fs.rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
  }
}
