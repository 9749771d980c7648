/**
 * Would a pipelining driver lower an authorization's cost? `npm run bench:driver` (PostgreSQL only,
 * BENCH_DATABASE_URL). Starts the server on a throw-away schema, seeds a stored card and a history,
 * warms it, then records the SQL it sends while it answers BENCH_DRIVER_TRACE (default 2,000)
 * authorizations over BENCH_CONNECTIONS (default 32) HTTP connections (its pool and group commit:
 * grouped and single statements as sent; bench/record-sql.mjs, bench/driver-trace.ts), stops it and
 * replays that trace with fresh ids through:
 *   - no database at all (the replay's own cost, to subtract),
 *   - `pg`, one statement per connection at a time, named prepared statements (as the server),
 *   - postgres.js with as many connections (prepared statements; it pipelines only when all are busy),
 *   - postgres.js over fewer connections, so it pipelines (BENCH_DRIVER_PIPELINE_CONNECTIONS, default 2),
 *   - `pg` again (how far the host and the growing tables drifted meanwhile).
 * Each keeps at most BENCH_DRIVER_POOL statements in flight (default 10, the server's
 * DATABASE_POOL_SIZE), runs BENCH_SECONDS (default 5), and reports per authorization: this
 * process's CPU, PostgreSQL's, read/write system calls counted by the kernel (/proc/self/io), then,
 * in a second pass under `strace -f -c` (when installed), the network, read, write and writev calls
 * by name.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import postgres from 'postgres';
import { mintToken } from '../src/cli/token.ts';
import { cpuTicks, perRequest } from './cpu.ts';
import { loadTrace, replayTrace, type Driver, type Trace } from './driver-trace.ts';
import { api } from './seed.ts';
import { positive } from './env.ts';
import { log, postgresSchema, startServer, stopServer } from './server.ts';
import { capturedTransactions, seedPayments } from './transactions.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = positive('BENCH_SECONDS', 5);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 32);
const POOL = positive('BENCH_DRIVER_POOL', 10);
const PIPELINE_CONNECTIONS = positive('BENCH_DRIVER_PIPELINE_CONNECTIONS', 2);
const TRACE = positive('BENCH_DRIVER_TRACE', 2000);

const INT8_OID = 20;

/** `pg` as the server uses it: `connections` clients, every text a named prepared statement, int8 read as numbers. */
async function pgDriver(url: string, connections: number): Promise<Driver> {
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === INT8_OID ? Number : (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format),
  };
  const idle = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: url, types: types as pg.CustomTypesConfig });
      await client.connect();
      return client;
    }),
  );
  const all = [...idle];
  const names = new Map<string, string>();
  return {
    name: `pg, ${connections} connections`,
    async query(text, values) {
      const client = idle.pop();
      if (!client) throw new Error('more statements in flight than connections');
      let name = names.get(text);
      if (!name) names.set(text, (name = `bench_driver_${names.size}`));
      try {
        return await client.query({ name, text, values });
      } finally {
        idle.push(client);
      }
    },
    close: async () => void (await Promise.all(all.map((c) => c.end()))),
  };
}

/**
 * postgres.js: prepared statements; JSON that arrives as text goes as is (the server's values are
 * already serialized: its default serializer would make them JSON strings), int8 read as numbers.
 * Arrays go untyped, so PostgreSQL types them from the statement's casts: postgres.js would type
 * an array by its first element (a Date: timestamptz, not timestamptz[]), which PostgreSQL refuses.
 */
function postgresJsDriver(url: string, connections: number): Driver {
  const sql = postgres(url, {
    max: connections,
    prepare: true,
    onnotice: () => undefined,
    types: {
      json: {
        to: 114,
        from: [114, 3802],
        serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)),
        parse: (x: string) => JSON.parse(x) as unknown,
      },
      int8: { to: INT8_OID, from: [INT8_OID], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
    },
  });
  return {
    name: `postgres.js, ${connections} connections`,
    query: (text, values) =>
      sql.unsafe(
        text,
        values.map((v) => (Array.isArray(v) ? sql.typed(v as never, 0) : v)) as postgres.ParameterOrJSON<never>[],
        { prepare: true },
      ),
    close: () => sql.end({ timeout: 5 }),
  };
}

/** The replay's own cost: statements answered at once, no database. */
const noDriver: Driver = {
  name: 'no database (the replay itself)',
  query: () => Promise.resolve([]),
  close: async () => undefined,
};

/** syscr and syscw of this process (every read-like and write-like system call, sockets included). */
function ioCalls(): { reads: number; writes: number } {
  const io = fs.readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
  return { reads: field('syscr'), writes: field('syscw') };
}

/** Runs `fn` with `strace -f -c` attached to this process; the calls by name, or null without strace. */
async function straced(fn: () => Promise<void>): Promise<Map<string, number> | null> {
  const file = path.join(os.tmpdir(), `svc-bench-strace-${process.pid}.txt`);
  const tracer = spawn(
    'strace',
    ['-f', '-c', '-e', 'trace=network,read,write,writev,readv', '-o', file, '-p', String(process.pid)],
    { stdio: 'ignore' },
  );
  const failed = await new Promise<boolean>((resolve) => {
    tracer.once('error', () => resolve(true));
    const started = Date.now();
    const check = setInterval(() => {
      const traced = /^TracerPid:\s+[1-9]/m.test(fs.readFileSync('/proc/self/status', 'utf8'));
      if (traced || tracer.exitCode !== null || Date.now() - started > 5000) {
        clearInterval(check);
        resolve(!traced);
      }
    }, 50);
  });
  if (failed) {
    tracer.kill('SIGKILL');
    return null;
  }
  try {
    await fn();
  } finally {
    const exited = new Promise((resolve) => tracer.once('exit', resolve));
    tracer.kill('SIGINT');
    await exited;
  }
  const calls = new Map<string, number>();
  // % time, seconds, usecs/call, calls, [errors,] syscall
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)\s*$/.exec(line);
    if (match && match[2] !== 'total') calls.set(match[2]!, Number(match[1]));
  }
  fs.rmSync(file, { force: true });
  return calls;
}

interface Measured {
  variant: string;
  authorizationsPerSecond: number;
  statementsPerSecond: number;
  client: number | null;
  postgres: number | null;
  io: { reads: number; writes: number };
  traced: Map<string, number> | null;
}

async function measure(trace: Trace, driver: Driver): Promise<Measured> {
  const perStatement = trace.authorizations / trace.statements.length;
  try {
    // Connections opened, statements prepared on each, code warm.
    await replayTrace(trace, driver, POOL, 1);
    // The system calls counted inside the CPU readings: those read every process's /proc/PID/stat.
    const before = cpuTicks(process.pid, true);
    const ioBefore = ioCalls();
    const { statements, seconds } = await replayTrace(trace, driver, POOL, SECONDS);
    const ioAfter = ioCalls();
    const cpu = perRequest(before, cpuTicks(process.pid, true), statements * perStatement);
    const authorizations = statements * perStatement;
    const io = {
      reads: (ioAfter.reads - ioBefore.reads) / authorizations,
      writes: (ioAfter.writes - ioBefore.writes) / authorizations,
    };
    let tracedAuthorizations = 0;
    const counted = await straced(async () => {
      tracedAuthorizations = (await replayTrace(trace, driver, POOL, Math.min(3, SECONDS))).statements * perStatement;
    });
    const traced = counted && new Map([...counted].map(([name, calls]) => [name, calls / tracedAuthorizations]));
    return {
      variant: driver.name,
      authorizationsPerSecond: authorizations / seconds,
      statementsPerSecond: statements / seconds,
      client: cpu.server,
      postgres: cpu.postgres,
      io,
      traced,
    };
  } finally {
    await driver.close();
  }
}

function table(rows: Measured[]): string {
  const fixed = (n: number | null | undefined, digits = 2) => (n === null || n === undefined ? '–' : n.toFixed(digits));
  const names = [...new Set(rows.flatMap((r) => [...(r.traced?.keys() ?? [])]))].sort();
  const lines = [
    `| variant | authorizations/s | statements/s | client CPU ms/auth | PostgreSQL CPU ms/auth | read-like / write-like calls per auth (/proc) |${names.map((n) => ` ${n}/auth |`).join('')}`,
    `|---|---:|---:|---:|---:|---:|${names.map(() => '---:|').join('')}`,
  ];
  for (const r of rows) {
    const traced = names.map((n) => ` ${fixed(r.traced?.get(n) ?? 0)} |`).join('');
    lines.push(
      `| ${r.variant} | ${Math.round(r.authorizationsPerSecond)} | ${Math.round(r.statementsPerSecond)} | ${fixed(r.client, 3)} | ${fixed(r.postgres, 3)} | ${fixed(r.io.reads)} / ${fixed(r.io.writes)} |${traced}`,
    );
  }
  return lines.join('\n');
}

type Autocannon = (options: Record<string, unknown>) => PromiseLike<{ '2xx': number; non2xx: number }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * The server on a throw-away schema with a stored card and a history, warmed by authorizations, then
 * recording (bench/record-sql.mjs) while it answers TRACE more, CONNECTIONS at a time.
 */
async function record(
  schema: Awaited<ReturnType<typeof postgresSchema>>,
  dataDir: string,
): Promise<{ trace: Trace; serverCpu: number | null }> {
  const file = path.join(dataDir, 'trace.json');
  process.env.BENCH_RECORD_SQL_FILE = file;
  const server = await startServer(ROOT, dataDir, schema.databaseUrl, [
    '--import',
    path.join(ROOT, 'bench', 'record-sql.mjs'),
  ]);
  try {
    const token = await mintToken({
      privateKeyPem: fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8'),
      scopes: ['*.read', '*.write'],
      lifetimeSeconds: 3600,
    });
    const call = (method: string, requestUrl: string, body?: unknown) => api(server, token, method, requestUrl, body);
    const { cardId } = await seedPayments(call);
    await capturedTransactions(call, cardId, 200);
    await schema.analyze();
    const authorize = (extra: Record<string, unknown>) =>
      autocannon({
        url: `${server.baseUrl}/transactions`,
        method: 'POST',
        connections: CONNECTIONS,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1000, currency: 'USD', payment_method: { method: 'id', id: cardId } }),
        ...extra,
      });
    // Caches filled, hot texts named on every connection, code optimized: as a running server.
    await authorize({ duration: 2 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = cpuTicks(server.child.pid, true);
    server.child.kill('SIGUSR2');
    const startedAt = Date.now();
    const result = await authorize({ amount: TRACE });
    const endedAt = Date.now();
    const serverCpu = perRequest(before, cpuTicks(server.child.pid, true), result['2xx']).server;
    server.child.kill('SIGUSR2');
    for (let waited = 0; !fs.existsSync(file); waited += 50) {
      if (waited > 10_000) throw new Error('the server wrote no trace within 10 s of SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (result.non2xx > 0) throw new Error(`${result.non2xx} recorded authorizations were not answered 2xx`);
    return { trace: loadTrace(file, startedAt, endedAt, result['2xx']), serverCpu };
  } finally {
    await stopServer(server.child);
  }
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is required: the driver benchmark replays PostgreSQL statements');
  const schema = await postgresSchema(url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  try {
    log(
      `seeding a stored card and 200 captured transactions, then recording ${TRACE} authorizations, ${CONNECTIONS} at a time, on ${schema.databaseUrl}`,
    );
    const { trace, serverCpu } = await record(schema, dataDir);
    const rows: Measured[] = [];
    const variants = [
      () => noDriver,
      () => pgDriver(schema.databaseUrl, POOL),
      () => postgresJsDriver(schema.databaseUrl, POOL),
      () => postgresJsDriver(schema.databaseUrl, PIPELINE_CONNECTIONS),
      () => pgDriver(schema.databaseUrl, POOL),
    ];
    for (const make of variants) {
      const driver = await make();
      log(`${driver.name}: ${SECONDS} s, at most ${POOL} statements in flight`);
      const row = await measure(trace, driver);
      log(
        `${driver.name}: ${Math.round(row.authorizationsPerSecond)} authorizations/s, client CPU ${row.client?.toFixed(3)} ms, PostgreSQL CPU ${row.postgres?.toFixed(3)} ms per authorization`,
      );
      rows.push(rows.some((r) => r.variant === row.variant) ? { ...row, variant: `${row.variant}, again` } : row);
    }
    const { grouped } = trace;
    process.stdout.write(
      `\nThe trace: ${trace.authorizations} authorizations over HTTP, ${CONNECTIONS} connections (the server's CPU meanwhile: ${serverCpu?.toFixed(2) ?? '–'} ms per authorization), ${trace.statements.length} statements (${(trace.statements.length / trace.authorizations).toFixed(2)} per authorization), ${grouped.statements} of them grouped, of ${grouped.members.toFixed(1)} members on average. Replayed at most ${POOL} in flight, ${SECONDS} s each, Node ${process.version}, ${os.cpus().length} CPUs\n\n${table(rows)}\n`,
    );
  } finally {
    await schema.drop().catch((error: Error) => log(`could not drop the schema: ${error.message}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
