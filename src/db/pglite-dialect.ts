import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { PreparedSession } from './pglite-prepared.ts';
import { isBackground, SessionLanes } from './session-lanes.ts';

/** The longest a background statement waits behind requests for the session (session-lanes.ts). */
const MAX_BACKGROUND_WAIT_MS = 100;

/**
 * Kysely dialect for the embedded PGlite database. PGlite has one session, so the driver hands
 * out that session to one Kysely connection at a time: a transaction owns it until it ends and
 * every other query waits. Concurrent requests are therefore serialized, which gives the same
 * results a real server gives under its locks. Requests wait first: background work waits behind
 * them, up to MAX_BACKGROUND_WAIT_MS (session-lanes.ts).
 */
export class PGliteDialect implements Dialect {
  private driver: PGliteDriver | null = null;
  constructor(private readonly client: PGlite) {}
  /** The session's use, in the shape of a pool's (max 1): for the metrics endpoint. */
  stats() {
    const busy = this.driver?.busy ? 1 : 0;
    return { max: 1, total: 1, idle: 1 - busy, waiting: this.driver?.waiting ?? 0 };
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    this.driver = new PGliteDriver(this.client);
    return this.driver;
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private readonly lanes = new SessionLanes(MAX_BACKGROUND_WAIT_MS);
  /** The acquisitions not yet released, so that `destroy` waits for the last. */
  private pending = 0;
  private drained: (() => void) | null = null;
  private readonly connection: PGliteConnection;

  constructor(private readonly client: PGlite) {
    this.connection = new PGliteConnection(client);
  }

  /** Acquirers waiting for the session. */
  get waiting(): number {
    return this.lanes.waiting;
  }

  async init(): Promise<void> {
    await this.client.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.pending += 1;
    await this.lanes.acquire(isBackground());
    return this.connection;
  }

  get busy(): boolean {
    return this.lanes.busy;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${level}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.pending -= 1;
    this.lanes.release();
    if (this.pending === 0) this.drained?.();
  }

  async destroy(): Promise<void> {
    if (this.pending > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    if (!this.client.closed) await this.client.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  private readonly prepared: PreparedSession;
  constructor(private readonly client: PGlite) {
    this.prepared = new PreparedSession(client);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Without parameters the simple protocol runs, which accepts several statements (migrations).
    if (compiled.parameters.length === 0) {
      const results = await this.client.exec(compiled.sql);
      const last = results[results.length - 1];
      return { rows: (last?.rows ?? []) as R[], numAffectedRows: BigInt(last?.affectedRows ?? 0) };
    }
    const result = await this.prepared.query<R>(compiled.sql, compiled.parameters as unknown[]);
    return { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) };
  }

  // biome-ignore lint/correctness/useYield: Kysely's DatabaseConnection wants an async iterator; as a generator this one throws when first read, not when called
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }
}
