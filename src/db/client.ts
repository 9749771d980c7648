import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { PGliteDialect } from './pglite-dialect.ts';

export type Db = Kysely<Database>;

export interface DbHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** int8 holds minor-unit amounts and counts, all below 2^53: read them as numbers on both drivers. */
const parseInt8 = (value: string) => Number(value);

export interface OpenDbOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** Loads a PGlite data directory dump (used by tests to skip migrations). */
  pgliteDump?: Blob | File;
  /** PGlite in memory (tests). */
  inMemory?: boolean;
  /** PostgreSQL schema to use as search_path (tests isolate files by schema). */
  schema?: string;
  poolSize?: number;
}

export async function openDb(options: OpenDbOptions): Promise<DbHandle> {
  if (options.databaseUrl) {
    const types = {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? parseInt8 : (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format),
    };
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: types as pg.CustomTypesConfig,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  let dataDir: string | undefined;
  if (!options.inMemory) {
    dataDir = path.join(options.dataDir, 'pgdata');
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  }
  const client = new PGlite({
    ...(dataDir ? { dataDir } : {}),
    ...(options.pgliteDump ? { loadDataDir: options.pgliteDump } : {}),
    parsers: { [INT8_OID]: parseInt8, [NUMERIC_OID]: (v: string) => v },
  });
  await client.waitReady;
  const db = new Kysely<Database>({ dialect: new PGliteDialect(client) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}
