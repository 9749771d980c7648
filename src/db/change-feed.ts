import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from './executor.ts';

/**
 * Cross-process invalidation of the read caches (src/db/read-cache.ts) through PostgreSQL
 * LISTEN/NOTIFY. Triggers (migration 0034) send `<schema>:<table>:<merchant_account_id>` on the
 * channel `svc_changes` for every row written to a cached table. PostgreSQL delivers a
 * notification when the writing transaction commits, so a process that hears it and then reads
 * sees the change. The schema is in the payload because every schema of a database shares the
 * channel (the tests run each file in its own schema): a feed ignores other schemas' changes.
 */

export const CHANGE_CHANNEL = 'svc_changes';

/** What a feed tells the caches. */
export interface ChangeListener {
  /** A committed write to `table`'s rows of one merchant account, in this process's schema. */
  changed(table: string, merchantAccountId: string): void;
  /**
   * true: every change committed from now on will be told. false: changes may go unnoticed until
   * the next true (the connection is down, or the feed closed).
   */
  live(up: boolean): void;
}

export interface ChangeFeed {
  close(): Promise<void>;
}

type Log = { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };

export interface ChangeFeedOptions {
  log?: Log;
  /** Reconnection backoff, doubling from `min` up to `max` (ms). */
  retryMs?: { min: number; max: number };
  /** How often the idle connection is checked (ms): a silently dead connection loses notifications. */
  heartbeatMs?: number;
}

/** A ChangeListener that invalidates a cache per table. */
export function invalidating(
  byTable: Record<string, { invalidate(key: string): void; serve(on: boolean): void }>,
): ChangeListener {
  return {
    changed: (table, merchantAccountId) => byTable[table]?.invalidate(merchantAccountId),
    live: (up) => Object.values(byTable).forEach((cache) => cache.serve(up)),
  };
}

/** `<schema>:<table>:<merchant_account_id>`; merchant account ids may hold colons, schema and table names do not. */
export function parseChange(payload: string): { schema: string; table: string; merchantAccountId: string } | null {
  const first = payload.indexOf(':');
  const second = payload.indexOf(':', first + 1);
  if (first <= 0 || second <= first + 1) return null;
  return {
    schema: payload.slice(0, first),
    table: payload.slice(first + 1, second),
    merchantAccountId: payload.slice(second + 1),
  };
}

function deliver(listener: ChangeListener, schema: string, payload: string): void {
  const change = parseChange(payload);
  if (change && change.schema === schema) listener.changed(change.table, change.merchantAccountId);
}

/**
 * PGlite: the same triggers notify the one session, and PGlite hands every notification to
 * `onNotification`. Chosen over invalidating in the writing code only, so that writes made outside
 * the services (a migration, `svc` commands, SQL in tests) reach the caches the same way on both
 * databases. LISTEN goes through Kysely, not `client.listen`: PGlite has one session, and Kysely's
 * driver (pglite-dialect.ts) hands it out one caller at a time, so the LISTEN cannot land inside
 * another caller's open transaction (where a rollback would undo it).
 */
export async function openPgliteChangeFeed(db: Db, client: PGlite, listener: ChangeListener): Promise<ChangeFeed> {
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db);
  const schema = rows[0]!.schema;
  await sql.raw(`LISTEN ${CHANGE_CHANNEL}`).execute(db);
  const off = client.onNotification((channel, payload) => {
    if (channel === CHANGE_CHANNEL) deliver(listener, schema, payload);
  });
  listener.live(true);
  return {
    async close() {
      off();
      listener.live(false);
    },
  };
}

export interface PgFeedConnection {
  connectionString: string;
  /** The search_path of the process's pool (tests), so `current_schema()` names the same schema. */
  schema?: string | undefined;
}

/**
 * PostgreSQL: one dedicated connection per process (not from the pool, which would hand it to
 * queries), application_name `svc-changes`. Resolves once the first attempt to connect is over,
 * whether or not it succeeded: the caches serve only while it is connected.
 */
export async function openPgChangeFeed(
  connection: PgFeedConnection,
  listener: ChangeListener,
  options: ChangeFeedOptions = {},
): Promise<ChangeFeed> {
  const feed = new PgChangeFeed(connection, listener, options);
  await feed.connect();
  return feed;
}

class PgChangeFeed implements ChangeFeed {
  private client: pg.Client | null = null;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly retryMs: { min: number; max: number };

  constructor(
    private readonly connection: PgFeedConnection,
    private readonly listener: ChangeListener,
    private readonly options: ChangeFeedOptions,
  ) {
    this.retryMs = options.retryMs ?? { min: 100, max: 10_000 };
  }

  async connect(): Promise<void> {
    this.retry = null;
    const { connectionString, schema } = this.connection;
    const client = new pg.Client({
      connectionString,
      // The schema in the name lets a test find its own process's feed among parallel files'.
      application_name: schema ? `svc-changes ${schema}` : 'svc-changes',
      keepAlive: true,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    this.client = client;
    // Without an error listener a lost connection would crash the process.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
      const current = rows[0]!.schema;
      client.on('notification', (message) => {
        if (message.channel === CHANGE_CHANNEL && message.payload !== undefined)
          deliver(this.listener, current, message.payload);
      });
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.client !== client) return;
    if (this.failures > 0)
      this.options.log?.info({ attempts: this.failures }, 'change feed reconnected; read caches serve again');
    this.failures = 0;
    // Changes committed before the LISTEN went unheard: `live(true)` starts the caches empty.
    this.listener.live(true);
    this.beat(client);
  }

  /** A query now and then: a connection that died without a word (a network partition) fails it. */
  private beat(client: pg.Client): void {
    const every = this.options.heartbeatMs ?? 10_000;
    this.heartbeat = setTimeout(() => {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('change feed heartbeat timed out')), every).unref(),
      );
      Promise.race([client.query('SELECT 1'), timeout]).then(
        () => this.client === client && this.beat(client),
        (error: unknown) => this.lost(client, error),
      );
    }, every);
    this.heartbeat.unref();
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.heartbeat) clearTimeout(this.heartbeat);
    // Everything cached may be stale by now, and changes go unheard until the next LISTEN.
    this.listener.live(false);
    client.end().catch(() => undefined);
    if (this.closed) return;
    if (this.failures === 0)
      this.options.log?.warn(
        { err: error },
        'change feed lost its connection; read caches bypassed until it reconnects',
      );
    const delay = Math.min(this.retryMs.max, this.retryMs.min * 2 ** this.failures);
    this.failures += 1;
    this.retry = setTimeout(() => void this.connect(), delay);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.heartbeat) clearTimeout(this.heartbeat);
    const client = this.client;
    this.client = null;
    this.listener.live(false);
    await client?.end().catch(() => undefined);
  }
}
