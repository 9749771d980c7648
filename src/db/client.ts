import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { addDbTime } from '../observability/request-timing.ts';
import type { Database } from './schema.ts';
import type { Db } from './executor.ts';
import { enableGroupCommit } from './group-commit.ts';
import {
  openPgChangeFeed,
  openPgliteChangeFeed,
  type ChangeFeed,
  type ChangeFeedOptions,
  type ChangeListener,
} from './change-feed.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { PreparingClient } from './prepared-statements.ts';

export type { Db };

/** Connections of this process: for the metrics endpoint. */
export interface PoolStats {
  max: number;
  /** Open connections (PGlite: its one session). */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface DbHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  pool(): PoolStats;
  /** Starts telling `listener` about committed changes to cached tables (src/db/change-feed.ts). */
  openChangeFeed(listener: ChangeListener, options?: ChangeFeedOptions): Promise<ChangeFeed>;
  close(): Promise<void>;
}

/** Every statement's duration goes to the current request's timing (Server-Timing, access log). */
const log = (event: { queryDurationMillis: number }) => addDbTime(event.queryDurationMillis);

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
  /** Group concurrent requests' identical writes (src/db/group-commit.ts). Default true. */
  groupCommit?: boolean;
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
      Client: PreparingClient,
      types: types as pg.CustomTypesConfig,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // An idle client that loses its connection must not crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    const max = options.poolSize ?? 10;
    // Half the pool at most for grouped writes, and as many for grouped reads (src/db/group-commit.ts).
    if (options.groupCommit !== false)
      enableGroupCommit(db, { maxInFlight: Math.max(1, Math.floor(max / 2)), maxMembers: 64 });
    const feedConnection = { connectionString: options.databaseUrl, schema: options.schema };
    return {
      db,
      kind: 'postgres',
      pool: () => ({ max, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      openChangeFeed: (listener, feedOptions) => openPgChangeFeed(feedConnection, listener, feedOptions),
      close: () => db.destroy(),
    };
  }
  let dataDir: string | undefined;
  let releaseLock: () => void = () => {};
  if (!options.inMemory) {
    dataDir = path.join(options.dataDir, 'pgdata');
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    releaseLock = lockDataDir(options.dataDir);
  }
  const client = new PGlite({
    ...(dataDir ? { dataDir } : {}),
    ...(options.pgliteDump ? { loadDataDir: options.pgliteDump } : {}),
    parsers: { [INT8_OID]: parseInt8, [NUMERIC_OID]: (v: string) => v },
  });
  try {
    await client.waitReady;
  } catch (error) {
    releaseLock();
    throw error;
  }
  const dialect = new PGliteDialect(client);
  const db = new Kysely<Database>({ dialect, log });
  // One session: one grouped write and one grouped read at a time, the next group forming meanwhile
  // (decision 0147). Each group costs PGlite one statement's parse, plan and commit instead of one per request.
  if (options.groupCommit !== false) enableGroupCommit(db, { maxInFlight: 1, maxMembers: 64 });
  return {
    db,
    kind: 'pglite',
    pool: () => dialect.stats(),
    openChangeFeed: (listener) => openPgliteChangeFeed(db, client, listener),
    async close() {
      await db.destroy();
      releaseLock();
    },
  };
}

/**
 * PGlite is one process's database: a second process opening the same directory would corrupt
 * it. A lock file holding the owner's pid refuses the second opener with a clear message; a lock
 * left by a dead process is taken over.
 */
function lockDataDir(dir: string): () => void {
  const file = path.join(dir, 'pgdata.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => fs.rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new Error(
          `the embedded database in ${dir} is in use by process ${owner} (PGlite allows one process); stop that process, or use DATABASE_URL for several processes`,
        );
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`cannot lock the embedded database in ${dir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
