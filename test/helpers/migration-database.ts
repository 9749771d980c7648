import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDb, type DbHandle } from '../../src/db/client.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { uuidv7 } from '../../src/lib/ids.ts';

/**
 * Databases for a migration's test: each an empty database (a fresh schema on TEST_DATABASE_URL, or
 * an in-memory PGlite) migrated to just before `version` (a migration's number, e.g. '0076'), so
 * the test can write the data the migration finds and then apply it. `closeAll` (in `afterAll`)
 * closes them and drops their schemas.
 */
export function migrationDatabases(label: string) {
  const url = process.env.TEST_DATABASE_URL;
  const cleanups: Array<() => Promise<void>> = [];
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  return {
    async before(version: string): Promise<DbHandle> {
      const schema = `t_${uuidv7().replace(/-/g, '').slice(-16)}`;
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-${label}-migration-`));
      if (url) await admin(`CREATE SCHEMA ${schema}`);
      const handle = await openDb(
        url ? { databaseUrl: url, dataDir, schema } : { databaseUrl: null, dataDir, inMemory: true },
      );
      cleanups.push(async () => {
        await handle.close();
        if (url) await admin(`DROP SCHEMA ${schema} CASCADE`);
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
      await migrate(
        handle.db,
        listMigrations().filter((m) => m.version < version),
      );
      return handle;
    },
    async closeAll(): Promise<void> {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    },
  };
}
