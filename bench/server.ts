/**
 * The server process the benchmark measures (bench/run.ts): `bin/svc.mjs serve` of a checkout, on a
 * free port and a temporary data directory, and a throw-away PostgreSQL schema when one is asked for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export interface Server {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
  /** The bearer token of its `GET /metrics` (set by the benchmark). */
  metricsToken: string;
}

/**
 * Seconds the server's garbage collector has paused it since it started, all kinds together: the
 * sum of prom-client's `nodejs_gc_duration_seconds` histogram in a `GET /metrics` answer (0 while
 * the histogram has no series yet). Null when the answer has no such histogram.
 */
export function gcSecondsFrom(metrics: string): number | null {
  if (!/^# TYPE nodejs_gc_duration_seconds histogram$/m.test(metrics)) return null;
  let total = 0;
  for (const match of metrics.matchAll(/^nodejs_gc_duration_seconds_sum(?:\{[^}]*\})? (\S+)$/gm)) {
    const value = Number(match[1]);
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

/** The server's `GET /metrics` answer, or null when it does not answer 200. */
export async function metricsText(server: Server): Promise<string | null> {
  try {
    const res = await fetch(`${server.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${server.metricsToken}` },
    });
    return res.ok ? await res.text() : null;
  } catch {
    return null;
  }
}

/**
 * The server's group-commit counters (src/db/group-commit.ts) in a `GET /metrics` answer: grouped
 * statements so far and the members (requests' writes or reads) they carried. Null without them
 * (PGlite, or a checkout from before them).
 */
export function groupedFrom(metrics: string): { statements: number; members: number } | null {
  const counter = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const statements = counter('svc_db_group_commit_statements_total');
  const members = counter('svc_db_group_commit_members_total');
  return Number.isFinite(statements) && Number.isFinite(members) ? { statements, members } : null;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PostgresSchema {
  /** The schema's name (`bench_` and 12 hex digits). */
  name: string;
  databaseUrl: string;
  drop(): Promise<void>;
  analyze(): Promise<void>;
  /**
   * What autovacuum would have done by now, when the server has it turned off (as this workplace's
   * CI configuration does): `VACUUM (ANALYZE)` of the schema's tables, so a scenario neither reads
   * the dead rows of the ones before it nor runs on plans chosen from stale statistics. Nothing
   * when autovacuum is on: the server's own workers do it. Returns whether it ran.
   */
  vacuumIfNoAutovacuum(): Promise<boolean>;
  /**
   * The server's counters of buffers written by its backends themselves (a backend that needs a
   * free buffer and finds only dirty ones writes one out) and of checkpoints started, server-wide
   * (`pg_stat_bgwriter`, PostgreSQL 16 and earlier); null where the view has no such columns.
   */
  bufferWrites(): Promise<BufferWrites | null>;
  /** The server's `shared_buffers` setting, e.g. `128MB`. */
  sharedBuffers: string;
}

export interface BufferWrites {
  /** Buffers written by backends themselves (`buffers_backend`). */
  backend: number;
  /** Checkpoints started, timed and requested (a requested one follows max_wal_size). */
  checkpoints: number;
}

/** The tables of `schema`, each as a quoted `schema.table`. */
async function tablesOf(
  run: <T extends pg.QueryResultRow>(statement: string) => Promise<T[]>,
  schema: string,
): Promise<string[]> {
  const rows = await run<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = '${schema}'`,
  );
  return rows.map((row) => row.name);
}

/** A throw-away schema on `url`, so the server bootstraps an empty database. */
export async function postgresSchema(url: string): Promise<PostgresSchema> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const run = async <T extends pg.QueryResultRow = pg.QueryResultRow>(statement: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(statement)).rows;
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${schema}`);
  const [{ autovacuum }] = (await run<{ autovacuum: string }>('SHOW autovacuum')) as [{ autovacuum: string }];
  const [{ shared_buffers: sharedBuffers }] = (await run<{ shared_buffers: string }>('SHOW shared_buffers')) as [
    { shared_buffers: string },
  ];
  return {
    name: schema,
    sharedBuffers,
    // PostgreSQL 17 moved these counters to pg_stat_io and pg_stat_checkpointer.
    bufferWrites: () =>
      run<{ backend: string; checkpoints: string }>(
        'SELECT buffers_backend AS backend, checkpoints_timed + checkpoints_req AS checkpoints FROM pg_stat_bgwriter',
      ).then(
        ([row]) => (row ? { backend: Number(row.backend), checkpoints: Number(row.checkpoints) } : null),
        () => null,
      ),
    databaseUrl: withPath.toString(),
    drop: async () => void (await run(`DROP SCHEMA ${schema} CASCADE`)),
    // A bare ANALYZE (or VACUUM) takes every table of the database, whatever the search_path: the
    // other runs' and test files' schemas too. Both name this schema's tables.
    analyze: async () => {
      const tables = await tablesOf(run, schema);
      if (tables.length > 0) await run(`ANALYZE ${tables.join(', ')}`);
    },
    vacuumIfNoAutovacuum: async () => {
      if (autovacuum === 'on') return false;
      const tables = await tablesOf(run, schema);
      if (tables.length > 0) await run(`VACUUM (ANALYZE) ${tables.join(', ')}`);
      return true;
    },
  };
}

/**
 * The node flags of a checkout's `npm start` (`node FLAGS bin/svc.mjs serve` in its package.json),
 * so the benchmark runs each server as it is run (the Dockerfile's CMD carries the same flags).
 * None when the script has another form (an older checkout's plain `node bin/svc.mjs serve`).
 */
export function npmStartNodeArgs(root: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const flags = /^node((?:\s+-\S+)*)\s+bin\/svc\.mjs\s+serve$/.exec(pkg.scripts?.start?.trim() ?? '')?.[1] ?? '';
  return flags.split(/\s+/).filter(Boolean);
}

/**
 * The server's LOG_LEVEL: `warn` (no access lines) unless BENCH_LOG_LEVEL says otherwise, e.g.
 * `info` to measure what `npm start`'s default access log costs. The lines go to a pipe this
 * process reads, as a container runtime's log collector would.
 */
export const SERVER_LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn';

/**
 * A capture's settlement job is due SETTLEMENT_DELAY_SECONDS after it (60 by default). With the
 * default, the tens of thousands of captures of the capture rows settled a minute later, during
 * the rows after them, and their jobs' CPU was counted as those rows' (decision 0108).
 * So the benchmark's servers settle a week later (the most the
 * setting allows), unless the environment gives SETTLEMENT_DELAY_SECONDS itself.
 */
export function settlementDelaySeconds(env: NodeJS.ProcessEnv = process.env): string {
  return env.SETTLEMENT_DELAY_SECONDS || String(7 * 24 * 3600);
}

/**
 * `svc serve` of the checkout at `root` (its own code and node_modules, run from there), with the
 * flags of its `npm start`, then `nodeArgs` (a profiler, say; a flag given again wins), before the
 * script. Resolves once GET /readyz answers 200.
 */
export async function startServer(
  root: string,
  dataDir: string,
  databaseUrl: string | null,
  nodeArgs: string[],
): Promise<Server> {
  const port = await freePort();
  // No cap on requests per connection: at the cap the server answers `Connection: close`, which
  // autocannon ignores; it goes on sending on that connection and Node answers each of those with
  // 503, so a scenario past 1,000 requests per connection measured 503s (docs/performance.md).
  // A metrics token of its own: the table's GC column reads GET /metrics before and after each scenario.
  const metricsToken = randomBytes(32).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: SERVER_LOG_LEVEL,
    HTTP_MAX_REQUESTS_PER_SOCKET: '0',
    METRICS_TOKEN: metricsToken,
    SETTLEMENT_DELAY_SECONDS: settlementDelaySeconds(),
  };
  delete env.DATABASE_URL;
  delete env.PUBLIC_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const child = spawn(
    process.execPath,
    [...npmStartNodeArgs(root), ...nodeArgs, path.join(root, 'bin', 'svc.mjs'), 'serve'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const server = { baseUrl: `http://127.0.0.1:${port}`, child, output: () => output, metricsToken };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${server.baseUrl}/readyz`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stopServer(child);
  throw new Error(`the server did not answer GET /readyz with 200 within 60 s:\n${output}`);
}

/**
 * SIGTERM, the server's graceful shutdown: it exits by itself, so a `--cpu-prof` profile gets
 * written. The kill after 30 s (a profile of a long run takes seconds to write on a busy host)
 * loses the profile, hence the warning.
 */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    log(`the server (pid ${child.pid}) did not stop within 30 s of SIGTERM: killed`);
    child.kill('SIGKILL');
  }, 30_000);
  await exited;
  clearTimeout(timer);
  if (child.exitCode !== 0) log(`the server (pid ${child.pid}) exited with ${child.exitCode ?? child.signalCode}`);
}
