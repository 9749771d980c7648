/**
 * Authorizations per second against the database's own ceiling, measured from outside the server:
 * `BENCH_DATABASE_URL=… npm run bench:outside` (PostgreSQL on this host, `pgbench` on the PATH or in
 * `pg_config --bindir`).
 *
 * Starts this checkout's server as `npm start` runs it, on a throw-away schema, makes a mock-card
 * service and a stored card, and then, BENCH_OUTSIDE_ROUNDS (3) times over: `pgbench` runs a durable
 * transaction of four inserts (BEGIN, four single-row inserts into a table with a primary key,
 * COMMIT; prepared statements, BENCH_CONNECTIONS clients (32) on 2 threads) for BENCH_SECONDS (10)
 * s, then autocannon sends stored-card authorizations over as many connections for as long. The
 * ratio of each round is its authorizations per second over its pgbench rate, both from the same
 * minute of the same host. BENCH_WARMUP (3) s of authorizations are sent first, unmeasured. Nothing
 * runs in-process with the server: autocannon and pgbench are what a client and a DBA would run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { positive } from './env.ts';
import { log, npmStartNodeArgs, postgresSchema, startServer, stopServer } from './server.ts';
import { storedCardAuthorization } from './transactions.ts';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface Cannon {
  requests: Histogram;
  latency: Histogram;
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => PromiseLike<Cannon>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const FOUR_INSERTS = `BEGIN;
INSERT INTO bench_outside_reference (n, note) VALUES (1, 'reference');
INSERT INTO bench_outside_reference (n, note) VALUES (2, 'reference');
INSERT INTO bench_outside_reference (n, note) VALUES (3, 'reference');
INSERT INTO bench_outside_reference (n, note) VALUES (4, 'reference');
COMMIT;
`;

/** pgbench's `tps = N (without initial connection time)` line. */
export function pgbenchTps(output: string): number {
  const match = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
  if (!match) throw new Error(`pgbench printed no tps line:\n${output}`);
  return Number(match[1]);
}

/** PostgreSQL's client programs: from `pg_config --bindir`, or the PATH. */
function pgProgram(name: string): string {
  try {
    return path.join(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim(), name);
  } catch {
    return name;
  }
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is required (PostgreSQL on this host)');
  const connections = positive('BENCH_CONNECTIONS', 32);
  const seconds = positive('BENCH_SECONDS', 10);
  const rounds = positive('BENCH_OUTSIDE_ROUNDS', 3);
  const warmup = positive('BENCH_WARMUP', 3);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const schema = await postgresSchema(url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-outside-'));
  const script = path.join(dataDir, 'four-inserts.sql');
  fs.writeFileSync(script, FOUR_INSERTS);
  const server = await startServer(root, dataDir, schema.databaseUrl, npmStartNodeArgs(root));
  // libpq reads `+` in a URI as itself, where URLSearchParams wrote it for a space.
  const libpqUrl = schema.databaseUrl.replaceAll('+', '%20');
  const psql = (sql: string) => execFileSync(pgProgram('psql'), [libpqUrl, '-q', '-c', sql], { stdio: 'ignore' });
  const loadBefore = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  try {
    const authorization = await storedCardAuthorization(server, dataDir);
    psql(
      'CREATE TABLE bench_outside_reference (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, n int NOT NULL, note text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
    const authorize = (duration: number) =>
      autocannon({
        url: `${server.baseUrl}/transactions`,
        method: 'POST',
        connections,
        duration,
        headers: authorization.headers,
        body: authorization.body,
      });
    await authorize(warmup);
    await schema.vacuumIfNoAutovacuum();
    const rows: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const out = execFileSync(
        pgProgram('pgbench'),
        ['-n', '-M', 'prepared', '-c', String(connections), '-j', '2', '-T', String(seconds), '-f', script, libpqUrl],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const tps = pgbenchTps(out);
      const result = await authorize(seconds);
      const failed = result.non2xx + result.errors;
      const ratio = result.requests.average / tps;
      log(`round ${round}: pgbench ${tps.toFixed(0)} tps, authorizations ${result.requests.average.toFixed(0)}/s`);
      rows.push(
        `| ${round} | ${tps.toFixed(0)} | ${result.requests.average.toFixed(0)} | **${ratio.toFixed(2)}** | ${result.latency.p50} | ${result.latency.p99} | ${failed} |`,
      );
    }
    console.log(
      `Stored-card authorizations from outside (autocannon, ${connections} connections, ${seconds} s) against pgbench's durable four-insert transaction (${connections} clients), ${rounds} rounds on one host; load average before: ${loadBefore}`,
    );
    console.log('| round | pgbench tps | authorizations/s | ratio | p50 ms | p99 ms | failed |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    await stopServer(server.child);
    await schema.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error: unknown) => {
    log(String(error instanceof Error ? (error.stack ?? error.message) : error));
    process.exit(1);
  });
}
