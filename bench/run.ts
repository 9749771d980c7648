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
 *   BENCH_RATE         offered requests/s of the fixed-rate authorization scenario (default 1000),
 *                      sent over BENCH_RATE_CONNECTIONS connections (default 64)
 *   BENCH_ONLY         a regular expression: only the scenarios whose name matches run (the capture
 *                      scenario captures what the first authorization scenario authorized)
 * On PostgreSQL the transaction rows come with the reference (a plain transaction of four inserts,
 * measured right before them) and the SQL of one authorization replayed alone; every row is also
 * given as a ratio to the reference (bench/sql-alone.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import pg from 'pg';
import { mintToken } from '../src/cli/token.ts';
import { describePrivateKeyPem } from '../src/modules/api-key-pairs/key-material.ts';
import { cpuTicks, perRequest, type CpuFigures } from './cpu.ts';
import { eachOnce } from './each-once.ts';
import { flowScenarios } from './flows.ts';
import { REFERENCE_SCENARIO, transactionScenarios } from './transactions.ts';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  total: number;
}
interface Result {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
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
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A throw-away schema on BENCH_DATABASE_URL, so the server bootstraps an empty database. */
async function postgresSchema(url: string): Promise<{ databaseUrl: string; drop(): Promise<void>; analyze(): Promise<void> }> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${schema}`);
  return { databaseUrl: withPath.toString(), drop: () => run(`DROP SCHEMA ${schema} CASCADE`), analyze: () => run(`SET search_path = ${schema}; ANALYZE`) };
}

interface Server {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
}

async function startServer(dataDir: string, databaseUrl: string | null): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.PUBLIC_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'svc.mjs'), 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const server = { baseUrl: `http://127.0.0.1:${port}`, child, output: () => output };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${server.baseUrl}/readyz`).then((res) => res.status === 200, () => false);
    if (ready) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stopServer(child);
  throw new Error(`the server did not answer GET /readyz with 200 within 60 s:\n${output}`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function api(server: Server, token: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

async function expectOk(server: Server, token: string, url: string): Promise<any> {
  const res = await api(server, token, 'GET', url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json;
}

async function seed(server: Server, token: string): Promise<void> {
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ACCOUNTS; i = next++) {
      const res = await api(server, token, 'POST', '/merchant-accounts', { id: `${prefix}-${i}`, display_name: `Bench merchant ${i}` });
      if (res.status !== 201) throw new Error(`creating a merchant account answered ${res.status}: ${JSON.stringify(res.json)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/**
 * Distinct tokens with the claims `mintToken` writes. The key is parsed once: `mintToken` derives
 * the public key on every call, which would make minting thousands of tokens take minutes.
 */
async function tokenPool(privateKeyPem: string, count: number): Promise<string[]> {
  const { privateKey, thumbprint } = await describePrivateKeyPem(privateKeyPem);
  const iat = Math.floor(Date.now() / 1000);
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    tokens.push(
      await new SignJWT({ scopes: ['*.read', '*.write'] })
        .setProtectedHeader({ alg: 'ES512', typ: 'JWT', kid: thumbprint })
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(iat + 3600)
        .setJti(randomUUID())
        .setIssuer('svc-cli')
        .sign(privateKey),
    );
  }
  return tokens;
}

interface Row {
  scenario: string;
  result: Result;
  note?: string;
  cpu: CpuFigures;
}

async function bench(server: Server, requestPath: string, token: string, extra: Record<string, unknown> = {}): Promise<Result> {
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
      requests: [{ setupRequest: (request: Request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${next()}` } }), onResponse }],
    }),
  );
  return { result, note: `${pool.length} tokens` };
}

async function deepCursor(server: Server, token: string, pages: number): Promise<string> {
  let body = await expectOk(server, token, '/merchant-accounts?limit=20');
  for (let i = 0; i < pages; i++) {
    if (!body.next_cursor) throw new Error(`the list ended after ${i + 1} pages; seed more accounts (BENCH_ACCOUNTS)`);
    body = await expectOk(server, token, `/merchant-accounts?limit=20&cursor=${encodeURIComponent(body.next_cursor)}`);
  }
  if (!body.next_cursor) throw new Error('the deep page is the last one; seed more accounts (BENCH_ACCOUNTS)');
  return `/merchant-accounts?limit=20&cursor=${encodeURIComponent(body.next_cursor)}`;
}

function table(rows: Row[]): string {
  const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  const cpu = (ms: number | null) => (ms === null ? '–' : ms.toFixed(2));
  const rate = (row: Row) => row.result.requests.total / row.result.duration;
  // Hosts differ (and one host from hour to hour): the reference, measured in the same run, says by how much.
  const referenceRow = rows.find((r) => r.scenario === REFERENCE_SCENARIO);
  const reference = referenceRow ? rate(referenceRow) : null;
  const lines = [
    `| scenario | requests/s |${reference ? ' × reference |' : ''} p50 ms | p99 ms | errors / non-2xx | CPU ms/request: server | PostgreSQL | idle |`,
    `|---|---:|${reference ? '---:|' : ''}---:|---:|---:|---:|---:|---:|`,
  ];
  for (const row of rows) {
    const { scenario, result, note, cpu: used } = row;
    const name = note ? `${scenario} (${note})` : scenario;
    const ratio = reference ? ` ${(rate(row) / reference).toFixed(2)} |` : '';
    lines.push(`| ${name} | ${Math.round(rate(row))} |${ratio} ${round(result.latency.p50)} | ${round(result.latency.p99)} | ${result.errors} / ${result.non2xx} | ${cpu(used.server)} | ${cpu(used.postgres)} | ${cpu(used.idle)} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const benchDbUrl = process.env.BENCH_DATABASE_URL || null;
  let schema: Awaited<ReturnType<typeof postgresSchema>> | null = null;
  let server: Server | null = null;
  // Ctrl-C: the finally below does not run on exit, so clean up here (the schema, if any, stays).
  process.once('SIGINT', () => {
    server?.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    if (benchDbUrl) schema = await postgresSchema(benchDbUrl);
    log(`starting the server (${schema ? 'PostgreSQL' : 'PGlite'}) in ${dataDir}`);
    server = await startServer(dataDir, schema?.databaseUrl ?? null);

    const privateKeyPem = fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8');
    const token = await mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 3600 });
    log(`seeding ${ACCOUNTS} merchant accounts`);
    await seed(server, token);
    log(`minting ${TOKENS} distinct tokens`);
    const pool = await tokenPool(privateKeyPem, TOKENS * 2);
    const transactionPool = pool.splice(TOKENS);
    // The last token checks that the pool is accepted; it is left out of the run (now cached).
    await expectOk(server, pool[pool.length - 1]!, '/merchant-accounts/default');
    const deepScenario = 'GET /merchant-accounts?limit=20&cursor=… (page 42)';
    const deep = ONLY && !ONLY.test(deepScenario) ? '' : await deepCursor(server, token, 40);

    const rows: Row[] = [];
    const run = async (scenario: string, fn: () => Promise<{ result: Result; note?: string }>) => {
      if (ONLY && !ONLY.test(scenario)) return;
      log(`${scenario}: ${SECONDS} s, ${CONNECTIONS} connections`);
      const before = cpuTicks(server!.child.pid, schema !== null);
      const started = Date.now();
      const measured = await fn();
      const own = measured.result.cpu;
      const cpu = own ?? perRequest(before, cpuTicks(server!.child.pid, schema !== null), measured.result.requests.total);
      // A run that ended before autocannon's last whole-second tick (each-once.ts) sat idle until
      // it: that idle time is not the requests'. Processes use no CPU while idle, so theirs stands.
      const tail = !own && (Date.now() - started) / 1000 - measured.result.duration > 0.1;
      rows.push({ scenario, ...measured, cpu: tail ? { ...cpu, idle: null } : cpu });
    };
    await run('GET /merchant-accounts/default, one token (cache hit)', async () => ({ result: await bench(server!, '/merchant-accounts/default', token) }));
    await run('GET /merchant-accounts/default, new token per request', () => freshTokenBench(server!, pool.slice(0, -1)));
    await run('GET /merchant-accounts?limit=20 (first page)', async () => ({ result: await bench(server!, '/merchant-accounts?limit=20', token) }));
    await run(deepScenario, async () => ({ result: await bench(server!, deep, token) }));
    if (process.env.BENCH_TRANSACTIONS !== '0') {
      const call = (method: string, url: string, body?: unknown) => api(server!, token, method, url, body);
      // What autovacuum does within a minute of the seed on a server (PGlite's own job every minute).
      const analyze = async () => schema?.analyze();
      const postgres = schema ? { dataDir, databaseUrl: schema.databaseUrl } : null;
      await transactionScenarios({ baseUrl: server.baseUrl, token, pool: transactionPool, connections: CONNECTIONS, seconds: SECONDS, rate: RATE, rateConnections: RATE_CONNECTIONS, api: call, autocannon, analyze, postgres }, run);
      await flowScenarios({ baseUrl: server.baseUrl, token, connections: CONNECTIONS, seconds: SECONDS, autocannon }, run);
    }

    const database = schema ? 'PostgreSQL' : 'PGlite';
    process.stdout.write(`\n${ACCOUNTS + 1} merchant accounts, ${database}, ${CONNECTIONS} connections, ${SECONDS} s per scenario, Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown model'})\n\n`);
    process.stdout.write(`${table(rows)}\n`);
  } catch (error) {
    if (server) process.stderr.write(`--- server output ---\n${server.output()}\n`);
    throw error;
  } finally {
    if (server) await stopServer(server.child);
    if (schema) await schema.drop().catch((error: Error) => log(`could not drop the schema: ${error.message}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
