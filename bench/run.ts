/**
 * HTTP benchmark of the real server process: `npm run bench`.
 *
 * Starts `svc serve` on a temporary DATA_DIR (embedded PGlite, or PostgreSQL in a throw-away schema
 * when BENCH_DATABASE_URL is set), seeds merchant accounts through the API, runs autocannon on a few
 * scenarios and prints a markdown table. Environment:
 *   BENCH_SECONDS      seconds per scenario (default 10)
 *   BENCH_CONNECTIONS  concurrent connections (default 10)
 *   BENCH_ACCOUNTS     merchant accounts to create first (default 1000)
 *   BENCH_TOKENS       distinct tokens for each fresh-token scenario, one request each (default 500
 *                      per second of run)
 *   BENCH_DATABASE_URL PostgreSQL to run against instead of PGlite
 *   BENCH_TRANSACTIONS 0 skips the transaction scenarios (bench/transactions.ts, bench/flows.ts)
 *   BENCH_RATE         offered requests/s of the fixed-rate authorization scenarios (default 1000),
 *                      sent over BENCH_RATE_CONNECTIONS connections at most (default 64): once evenly
 *                      paced (bench/paced.ts), once in autocannon's bursts at the start of each second
 *   BENCH_RATE_WARMUP  seconds of the same evenly paced load sent first, not measured (default 3; 0
 *                      for none): a server's first seconds run code not yet optimized, open its
 *                      sockets and database connections and prepare its statements, and their queue
 *                      would otherwise be the scenario's 99th percentile. The measured run's p99 of
 *                      each second is logged (stderr)
 *   BENCH_WARMUP       seconds of a closed-loop row's own load sent first, not measured (default 2;
 *                      0 for none): its server's first run of a path compiles it, and a row measured
 *                      from cold reads that too (the rows that send each token or transaction once
 *                      have none: a warm-up would use them up)
 *   BENCH_ONLY         a regular expression: only the scenarios whose name matches run (the capture
 *                      scenario captures what the first authorization scenario authorized; a match of
 *                      any smart-routing-cost row runs the three, e.g. `smart routing`)
 *   BENCH_ROUNDS, BENCH_SLICE_SECONDS  the smart-routing cost's interleaved slices: bench/routing-cost.ts
 *   BENCH_RISK_SECONDS, BENCH_RISK_RATE, BENCH_RISK_ENTRIES  the risk checks' row (blocklist, velocity,
 *                      card-testing guard per card authorization, in this process): bench/risk-checks-row.ts
 *   BENCH_COMPARE_WITH another checkout (a directory with bin/svc.mjs and its node_modules, e.g. from
 *                      `git worktree add /tmp/before <commit>`): its server is measured first
 *                      ("before"), then this checkout's ("after"), each on its own data directory or
 *                      schema, and a table compares the scenarios both have (requests/s and their
 *                      ratio, p99, CPU per request). Only its server runs: the scenarios are this
 *                      checkout's, and the SQL replay (which records through this checkout's app) is
 *                      left out of its run
 *   BENCH_LOG_LEVEL    the server's LOG_LEVEL (default warn: no access lines; `info` is npm start's
 *                      default, one line per request, read by this process through a pipe)
 *   BENCH_SERVER_NODE_ARGS extra node arguments of the server process, split on whitespace, after
 *                      the flags of its checkout's `npm start` (a flag given again wins), e.g.
 *                      `--cpu-prof --cpu-prof-dir=/tmp/prof` (an absolute directory: the server runs
 *                      in its checkout). It is stopped with SIGTERM and exits by itself, so the profile
 *                      is written; summarize it with `node --import tsx bench/profile-summary.ts FILE`
 *                      (a third argument, packages such as `pg,pg-protocol`, adds the time of the
 *                      samples with one of them on the stack; `--busiest=SECONDS` keeps the samples
 *                      of the scenario's run only)
 * A scenario with answers that are not 2xx has their status codes counted on stderr, followed by the
 * server's last output. On PostgreSQL each scenario whose writes or reads were grouped (src/db/
 * group-commit.ts) logs its grouped statements and the requests' statements they carried, from the
 * server's `GET /metrics` read around it.
 * On a PostgreSQL server whose autovacuum is off (this workplace's CI configuration), each scenario
 * starts with a VACUUM (ANALYZE) of the schema's tables, as autovacuum would have run by then
 * (bench/server.ts); the table's heading says so. The heading also gives the server's
 * shared_buffers, and each scenario during which PostgreSQL's backends had to write dirty buffers
 * out themselves (as they do once the benchmark's data outgrows shared_buffers) or a checkpoint
 * started logs how many: both are in the PostgreSQL CPU column, and they grow with the data the
 * rows before wrote.
 * On PostgreSQL the transaction rows come with the reference (a plain transaction of four inserts,
 * measured right before them) and the SQL of one authorization replayed alone; every row is also
 * given as a ratio to the reference (bench/sql-alone.ts).
 * `npm run bench:driver` (bench/driver.ts, PostgreSQL only) is a measurement of its own: the SQL of
 * BENCH_CONNECTIONS concurrent authorizations, recorded in-process as the server sends it (grouped
 * and single statements), replayed through `pg` and postgres.js (pipelined or not) for BENCH_SECONDS
 * each, with client and PostgreSQL CPU and system calls per authorization; BENCH_DRIVER_POOL,
 * BENCH_DRIVER_PIPELINE_CONNECTIONS and BENCH_DRIVER_TRACE are described in its header.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintToken } from '../src/cli/token.ts';
import { compareTable } from './compare.ts';
import { cpuTicks, perRequest, type CpuFigures } from './cpu.ts';
import { positive, whole } from './env.ts';
import { eachOnce } from './each-once.ts';
import { flowScenarios } from './flows.ts';
import type { LoadResult } from './paced.ts';
import { api, deepCursor, expectOk, seed, tokenPool } from './seed.ts';
import {
  gcSecondsFrom,
  groupedFrom,
  log,
  metricsText,
  postgresSchema,
  SERVER_LOG_LEVEL,
  startServer,
  stopServer,
  type Server,
} from './server.ts';
import { riskChecksGroup } from './risk-checks-row.ts';
import { routingCostGroup } from './routing-cost.ts';
import { REFERENCE_SCENARIO, transactionScenarios } from './transactions.ts';
import { withWarmup } from './warmup.ts';

interface Result extends LoadResult {
  /** Set by runs without the server (bench/sql-alone.ts): read before their connections closed. */
  cpu?: CpuFigures;
}
interface Request {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
}
/** The part of autocannon's API used here (the package ships no types). */
type Autocannon = (options: Record<string, unknown>) => PromiseLike<Result> & { stop(): void };
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = positive('BENCH_SECONDS', 10);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 10);
const ACCOUNTS = positive('BENCH_ACCOUNTS', 1000);
const TOKENS = positive('BENCH_TOKENS', 500 * SECONDS);
const RATE = positive('BENCH_RATE', 1000);
const RATE_CONNECTIONS = positive('BENCH_RATE_CONNECTIONS', 64);
const RATE_WARMUP = whole('BENCH_RATE_WARMUP', 3);
const WARMUP = whole('BENCH_WARMUP', 2);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
const DATABASE_URL = process.env.BENCH_DATABASE_URL || null;
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

interface Row {
  scenario: string;
  result: Result;
  note?: string;
  cpu: CpuFigures;
  /** The server's garbage-collection pauses, ms per request (null where its /metrics has none). */
  gcMs: number | null;
}

async function bench(
  server: Server,
  requestPath: string,
  token: string,
  extra: Record<string, unknown> = {},
): Promise<Result> {
  return autocannon({
    url: `${server.baseUrl}${requestPath}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${token}` },
    ...extra,
  });
}

async function freshTokenBench(server: Server, pool: string[]): Promise<{ result: Result; note?: string }> {
  // Every request carries a token the server has not seen, so each pays an ES512 verification.
  const result = await eachOnce(pool, ({ amount, next, onResponse }) =>
    autocannon({
      url: `${server.baseUrl}/merchant-accounts/default`,
      connections: CONNECTIONS,
      amount,
      requests: [
        {
          setupRequest: (request: Request) => ({
            ...request,
            headers: { ...request.headers, authorization: `Bearer ${next()}` },
          }),
          onResponse,
        },
      ],
    }),
  );
  return { result, note: `${pool.length} tokens` };
}

function table(rows: Row[]): string {
  const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  const cpu = (ms: number | null) => (ms === null ? '–' : ms.toFixed(2));
  const rate = (row: Row) => row.result.requests.total / row.result.duration;
  // Hosts differ (and one host from hour to hour): the reference, measured in the same run, says by how much.
  const referenceRow = rows.find((r) => r.scenario === REFERENCE_SCENARIO);
  const reference = referenceRow ? rate(referenceRow) : null;
  const lines = [
    `| scenario | requests/s |${reference ? ' × reference |' : ''} p50 ms | p99 ms | errors / non-2xx | CPU ms/request: server | PostgreSQL | idle | server GC pauses ms/request |`,
    `|---|---:|${reference ? '---:|' : ''}---:|---:|---:|---:|---:|---:|---:|`,
  ];
  for (const row of rows) {
    const { scenario, result, note, cpu: used, gcMs } = row;
    const name = note ? `${scenario} (${note})` : scenario;
    const ratio = reference ? ` ${(rate(row) / reference).toFixed(2)} |` : '';
    lines.push(
      `| ${name} | ${Math.round(rate(row))} |${ratio} ${round(result.latency.p50)} | ${round(result.latency.p99)} | ${result.errors} / ${result.non2xx} | ${cpu(used.server)} | ${cpu(used.postgres)} | ${cpu(used.idle)} | ${gcMs === null ? '–' : gcMs.toFixed(3)} |`,
    );
  }
  return lines.join('\n');
}

type Schema = Awaited<ReturnType<typeof postgresSchema>>;
/**
 * Runs a scenario; `warmup`, when given, runs first, outside its measurement (the CPU readings, the
 * GC pauses and the figures are the scenario's own).
 */
type Run = (
  scenario: string,
  fn: () => Promise<{ result: Result; note?: string }>,
  warmup?: () => Promise<void>,
) => Promise<void>;

/** One server under measurement; `own`: it runs this checkout's code (what the in-process SQL replay records). */
interface Target {
  server: Server;
  dataDir: string;
  schema: Schema | null;
  label: string;
  own: boolean;
  /** Whether the scenarios started with a VACUUM (ANALYZE) (PostgreSQL with autovacuum off). */
  vacuumed?: boolean;
  /** The smart-routing cost's table, printed under the run's (bench/routing-cost.ts). */
  routingCost?: string;
  /** The risk checks' table, printed under the run's (bench/risk-checks.ts). */
  riskChecks?: string | null;
}

/** `404 × 12, 500 × 3`: the answers that were not 2xx. */
function statusCounts(stats: Result['statusCodeStats']): string {
  return Object.entries(stats)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${code} × ${count}`)
    .join(', ');
}

/** The `run` the scenarios call: filters by BENCH_ONLY, measures CPU around each, appends to `rows`. */
function scenarioRunner(target: Target, rows: Row[]): Run {
  const { server, schema, label } = target;
  return async (scenario, fn, warmup) => {
    if (ONLY && !ONLY.test(scenario)) return;
    log(`${label}: ${scenario}: ${SECONDS} s, ${CONNECTIONS} connections`);
    if (schema && (await schema.vacuumIfNoAutovacuum())) target.vacuumed = true;
    await warmup?.();
    // GET /metrics outside the CPU readings, so its own cost is not counted as the scenario's.
    const metricsBefore = (await metricsText(server)) ?? '';
    const buffersBefore = (await schema?.bufferWrites()) ?? null;
    const before = cpuTicks(server.child.pid, schema !== null);
    const started = Date.now();
    const measured = await fn();
    const own = measured.result.cpu;
    const requests = measured.result.requests.total;
    const cpu = own ?? perRequest(before, cpuTicks(server.child.pid, schema !== null), requests);
    const metricsAfter = (await metricsText(server)) ?? '';
    const buffersAfter = (await schema?.bufferWrites()) ?? null;
    if (schema && buffersBefore && buffersAfter) {
      // Counted in the PostgreSQL CPU column: once the benchmark's data outgrows shared_buffers,
      // each new page a backend needs costs it the write of a dirty one.
      const written = buffersAfter.backend - buffersBefore.backend;
      const checkpoints = buffersAfter.checkpoints - buffersBefore.checkpoints;
      if (written > 0 || checkpoints > 0)
        log(
          `${label}: ${scenario}: PostgreSQL's backends wrote ${written} buffers themselves (${requests > 0 ? (written / requests).toFixed(2) : '–'} per request; shared_buffers ${schema.sharedBuffers}), ${checkpoints} checkpoints started`,
        );
    }
    const gcBefore = gcSecondsFrom(metricsBefore);
    const gcAfter = gcSecondsFrom(metricsAfter);
    const [groupedBefore, groupedAfter] = [groupedFrom(metricsBefore), groupedFrom(metricsAfter)];
    if (!own && groupedBefore && groupedAfter && groupedAfter.statements > groupedBefore.statements) {
      const statements = groupedAfter.statements - groupedBefore.statements;
      const members = groupedAfter.members - groupedBefore.members;
      log(
        `${label}: ${scenario}: ${statements} grouped statements carried ${members} requests' statements (${(members / statements).toFixed(1)} each; the others ran alone)`,
      );
    }
    // A row measured outside the server (the reference, the SQL replay) has no server GC of its own.
    const gcMs =
      own || gcBefore === null || gcAfter === null || requests === 0 ? null : ((gcAfter - gcBefore) * 1000) / requests;
    // A run that ended before autocannon's last whole-second tick (each-once.ts) sat idle until
    // it: that idle time is not the requests'. Processes use no CPU while idle, so theirs stands.
    const tail = !own && (Date.now() - started) / 1000 - measured.result.duration > 0.1;
    if (measured.result.non2xx > 0) {
      log(
        `${label}: ${scenario}: ${measured.result.non2xx} answers not 2xx: ${statusCounts(measured.result.statusCodeStats)}`,
      );
      log(`${label}: the server's last output (LOG_LEVEL=${SERVER_LOG_LEVEL}):\n${server.output().slice(-3000)}`);
    }
    rows.push({ scenario, ...measured, cpu: tail ? { ...cpu, idle: null } : cpu, gcMs });
  };
}

/** Seeds the server, then runs every scenario on it. */
async function scenarios(target: Target): Promise<Row[]> {
  const { server, dataDir, schema, label } = target;
  const privateKeyPem = fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8');
  const token = await mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 3600 });
  log(`${label}: seeding ${ACCOUNTS} merchant accounts`);
  await seed(server, token, ACCOUNTS);
  log(`${label}: minting ${TOKENS} distinct tokens`);
  const pool = await tokenPool(privateKeyPem, TOKENS * 2);
  const transactionPool = pool.splice(TOKENS);
  // The last token checks that the pool is accepted; it is left out of the run (now cached).
  await expectOk(server, pool[pool.length - 1]!, '/merchant-accounts/default');
  const deepScenario = 'GET /merchant-accounts?limit=20&cursor=… (page 42)';
  const deep = ONLY && !ONLY.test(deepScenario) ? '' : await deepCursor(server, token, 40);

  const rows: Row[] = [];
  const run = scenarioRunner(target, rows);
  const get = (requestPath: string) =>
    withWarmup(SECONDS, WARMUP, (duration) => bench(server, requestPath, token, { duration }));
  await run('GET /merchant-accounts/default, one token (cache hit)', ...get('/merchant-accounts/default'));
  await run('GET /merchant-accounts/default, new token per request', () => freshTokenBench(server, pool.slice(0, -1)));
  await run('GET /merchant-accounts?limit=20 (first page)', ...get('/merchant-accounts?limit=20'));
  await run(deepScenario, ...get(deep));
  // In this process with this checkout's code: measured once, on the run of this checkout's server.
  if (target.own)
    target.riskChecks = await riskChecksGroup(
      { databaseUrl: schema?.databaseUrl ?? null, serverDataDir: dataDir, seconds: SECONDS },
      run,
    );
  if (process.env.BENCH_TRANSACTIONS === '0') return rows;
  // An older checkout may lack what a group sets up (an endpoint, a field): its rows are then
  // missing from the comparison, the rest still compares. This checkout's failures stay fatal.
  const group = async (name: string, fn: () => Promise<void>) =>
    target.own ? fn() : fn().catch((error: Error) => log(`${label}: the ${name} scenarios stopped: ${error.message}`));
  const call = (method: string, url: string, body?: unknown) => api(server, token, method, url, body);
  // What autovacuum does within a minute of the seed on a server (PGlite's own job every minute).
  const analyze = async () => schema?.analyze();
  const postgres = schema ? { dataDir, databaseUrl: schema.databaseUrl } : null;
  const common = {
    baseUrl: server.baseUrl,
    token,
    connections: CONNECTIONS,
    seconds: SECONDS,
    warmup: WARMUP,
    autocannon,
  };
  await group('transaction', () =>
    transactionScenarios(
      {
        ...common,
        pool: transactionPool,
        rate: RATE,
        rateConnections: RATE_CONNECTIONS,
        rateWarmup: RATE_WARMUP,
        api: call,
        analyze,
        postgres,
        replaySql: target.own,
      },
      run,
    ),
  );
  await group('flow', () => flowScenarios(common, run));
  await group('smart routing cost', async () => {
    const measured = await routingCostGroup({
      server,
      schema,
      token,
      connections: CONNECTIONS,
      autocannon,
      warmup: WARMUP,
      only: ONLY,
      label,
    });
    if (measured?.vacuumed) target.vacuumed = true;
    rows.push(...(measured?.rows ?? []));
    target.routingCost = measured?.table;
  });
  return rows;
}

/** `/path (commit abc1234, uncommitted changes)`, or the path alone outside git. */
function describeCheckout(root: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
    return `${root} (commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ', uncommitted changes' : ''})`;
  } catch {
    return root;
  }
}

const sameCheckout = (a: string, b: string) => fs.realpathSync(a) === fs.realpathSync(b);

/**
 * Starts `svc serve` of the checkout at `root` on a fresh data directory (and schema), runs every
 * scenario, prints the table under `label` and returns its rows.
 */
async function measure(root: string, label: string): Promise<Row[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  let schema: Schema | null = null;
  let server: Server | null = null;
  // Ctrl-C: the finally below does not run on exit, so clean up here (the schema, if any, stays).
  const interrupt = () => {
    server?.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  try {
    if (DATABASE_URL) schema = await postgresSchema(DATABASE_URL);
    const database = schema ? 'PostgreSQL' : 'PGlite';
    log(`${label}: starting the server of ${root} (${database}) in ${dataDir}`);
    server = await startServer(root, dataDir, schema?.databaseUrl ?? null, SERVER_NODE_ARGS);
    log(
      `${label}: server pid ${server.child.pid}${SERVER_NODE_ARGS.length > 0 ? `, node ${SERVER_NODE_ARGS.join(' ')}` : ''}`,
    );
    const target: Target = { server, dataDir, schema, label, own: sameCheckout(root, ROOT) };
    const rows = await scenarios(target);
    const prelude = [
      WARMUP > 0 ? `closed-loop rows after ${WARMUP} s of their load` : null,
      target.vacuumed ? 'VACUUM (ANALYZE) before each (autovacuum off)' : null,
    ]
      .filter(Boolean)
      .join(', ');
    process.stdout.write(
      `\n${label}, ${describeCheckout(root)}: ${ACCOUNTS + 1} merchant accounts, ${database}${schema ? ` (shared_buffers ${schema.sharedBuffers})` : ''}, ${CONNECTIONS} connections, ${SECONDS} s per scenario${prelude ? ` (${prelude})` : ''}, LOG_LEVEL=${SERVER_LOG_LEVEL}, Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown model'})\n\n`,
    );
    process.stdout.write(`${table(rows)}\n`);
    if (target.routingCost) process.stdout.write(`\n${target.routingCost}\n`);
    if (target.riskChecks) process.stdout.write(`\n${target.riskChecks}\n`);
    return rows;
  } catch (error) {
    if (server) process.stderr.write(`--- server output ---\n${server.output()}\n`);
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
    if (server) await stopServer(server.child);
    if (schema) await schema.drop().catch((error: Error) => log(`could not drop the schema: ${error.message}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The other checkout first, then this one, on the same kind of database; then the two side by side. */
async function compare(other: string): Promise<void> {
  const otherRoot = path.resolve(other);
  if (!fs.existsSync(path.join(otherRoot, 'bin', 'svc.mjs')))
    throw new Error(`BENCH_COMPARE_WITH: there is no bin/svc.mjs in ${otherRoot}`);
  const before = await measure(otherRoot, 'before');
  const after = await measure(ROOT, 'after');
  process.stdout.write(
    `\nbefore: ${describeCheckout(otherRoot)}\nafter: ${describeCheckout(ROOT)}\n\n${compareTable(before, after)}\n`,
  );
}

async function main(): Promise<void> {
  const other = process.env.BENCH_COMPARE_WITH;
  if (other) await compare(other);
  else await measure(ROOT, 'this checkout');
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
