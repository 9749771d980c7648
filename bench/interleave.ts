/**
 * Two versions measured in alternating slices of one run: `npm run bench:interleave`.
 *
 * `BENCH_COMPARE_WITH` (bench/run.ts) measures the other checkout's server first and this one's
 * after it, minutes apart. On a shared host whose speed drifts by 15 % or more within minutes (the
 * reference moved from 3,615 to 4,618/s between the two halves of one run), the two halves then
 * differ by the host as much as by the code, and a change of a few percent cannot be seen. Here both
 * servers run at once, each on its own data directory and PostgreSQL schema, and the load goes to
 * one at a time in short slices, A B B A A B …, so that a drift of the host falls on both alike.
 * Each slice is preceded by one unmeasured second of the same load (the idle server's pool and
 * caches wake up), and each of its figures is the ratio of a B slice to the A slice next to it.
 *
 * Environment:
 *   BENCH_COMPARE_WITH   the other checkout ("before", A): a directory with bin/svc.mjs and its
 *                        node_modules (`git worktree add /tmp/before <commit>`); required
 *   BENCH_DATABASE_URL   PostgreSQL (default: PGlite in each server's data directory)
 *   BENCH_CONNECTIONS    concurrent connections (default 32)
 *   BENCH_SLICE_SECONDS  seconds per measured slice (default 5)
 *   BENCH_ROUNDS         slice pairs per scenario (default 6)
 *   BENCH_ONLY           a regular expression: only the scenarios whose name matches run
 *
 * On a PostgreSQL server whose autovacuum is off, each scenario starts with a VACUUM (ANALYZE) of
 * both servers' schemas (bench/server.ts), as in `npm run bench`.
 *
 * Prints, per scenario, each version's requests/s and CPU per request (median of its slices), the
 * median of the pairwise ratios B ÷ A with their range, and each slice (stderr).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintToken } from '../src/cli/token.ts';
import { cpuTicks, perRequest, type CpuFigures } from './cpu.ts';
import { api } from './seed.ts';
import { positive } from './env.ts';
import { log, postgresSchema, startServer, stopServer, type Server } from './server.ts';
import { capturedTransactions, seedPayments } from './transactions.ts';

interface Result {
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => PromiseLike<Result>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = positive('BENCH_CONNECTIONS', 32);
const SLICE = positive('BENCH_SLICE_SECONDS', 5);
const ROUNDS = positive('BENCH_ROUNDS', 6);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
const DATABASE_URL = process.env.BENCH_DATABASE_URL || null;

interface Side {
  label: string;
  root: string;
  server: Server;
  dataDir: string;
  schema: Awaited<ReturnType<typeof postgresSchema>> | null;
  token: string;
  cardId: string;
  captured: string[];
}

/** One scenario: the autocannon options for a side, for `seconds` (or a warm-up second). */
interface Scenario {
  name: string;
  load(side: Side, seconds: number): Record<string, unknown>;
}

const json = (side: Side) => ({ authorization: `Bearer ${side.token}`, 'content-type': 'application/json' });

const SCENARIOS: Scenario[] = [
  {
    name: 'POST /transactions, stored card, authorize',
    load: (side, seconds) => ({
      url: `${side.server.baseUrl}/transactions`,
      method: 'POST',
      headers: json(side),
      body: JSON.stringify({ amount: 1000, currency: 'USD', payment_method: { method: 'id', id: side.cardId } }),
      duration: seconds,
    }),
  },
  {
    name: 'POST /transactions, stored card, intent capture',
    load: (side, seconds) => ({
      url: `${side.server.baseUrl}/transactions`,
      method: 'POST',
      headers: json(side),
      body: JSON.stringify({
        amount: 1000,
        currency: 'USD',
        intent: 'capture',
        payment_method: { method: 'id', id: side.cardId },
      }),
      duration: seconds,
    }),
  },
  {
    name: 'POST /transactions/{id}/refunds, 1 unit, over 500 captured transactions',
    load: (side, seconds) => {
      let turn = 0;
      return {
        url: `${side.server.baseUrl}/transactions/x/refunds`,
        method: 'POST',
        headers: json(side),
        body: JSON.stringify({ amount: 1 }),
        duration: seconds,
        requests: [
          {
            setupRequest: (request: Record<string, unknown>) => ({
              ...request,
              path: `/transactions/${side.captured[turn++ % side.captured.length]}/refunds`,
            }),
          },
        ],
      };
    },
  },
  {
    name: 'POST /transactions, stored card, authorize, a new idempotency-key per request',
    load: (side, seconds) => ({
      url: `${side.server.baseUrl}/transactions`,
      method: 'POST',
      headers: json(side),
      body: JSON.stringify({ amount: 1000, currency: 'USD', payment_method: { method: 'id', id: side.cardId } }),
      duration: seconds,
      requests: [
        {
          setupRequest: (request: { headers: Record<string, string> }) => ({
            ...request,
            headers: { ...request.headers, 'idempotency-key': randomUUID() },
          }),
        },
      ],
    }),
  },
];

async function start(label: string, root: string): Promise<Side> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-interleave-'));
  const schema = DATABASE_URL ? await postgresSchema(DATABASE_URL) : null;
  log(`${label}: starting the server of ${root} in ${dataDir}`);
  const server = await startServer(root, dataDir, schema?.databaseUrl ?? null, []);
  const privateKeyPem = fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8');
  const token = await mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 3 * 3600 });
  const call = (method: string, url: string, body?: unknown) => api(server, token, method, url, body);
  const { cardId } = await seedPayments(call);
  const captured = await capturedTransactions(call, cardId, 500);
  await schema?.analyze();
  return { label, root, server, dataDir, schema, token, cardId, captured };
}

async function stop(side: Side): Promise<void> {
  await stopServer(side.server.child);
  await side.schema?.drop().catch((error: Error) => log(`could not drop the schema: ${error.message}`));
  fs.rmSync(side.dataDir, { recursive: true, force: true });
}

interface Slice {
  rate: number;
  p99: number;
  cpu: CpuFigures;
  failed: number;
}

async function slice(side: Side, scenario: Scenario): Promise<Slice> {
  await autocannon({ connections: CONNECTIONS, ...scenario.load(side, 1) });
  const before = cpuTicks(side.server.child.pid, side.schema !== null);
  const result = await autocannon({ connections: CONNECTIONS, ...scenario.load(side, SLICE) });
  const cpu = perRequest(before, cpuTicks(side.server.child.pid, side.schema !== null), result.requests.total);
  return {
    rate: result.requests.total / result.duration,
    p99: result.latency.p99,
    cpu,
    failed: result.errors + result.non2xx,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fixed = (value: number | null | undefined, digits = 2) =>
  value === null || value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);

async function main(): Promise<void> {
  const other = process.env.BENCH_COMPARE_WITH;
  if (!other) throw new Error('BENCH_COMPARE_WITH must name the other checkout (a directory with bin/svc.mjs)');
  const otherRoot = path.resolve(other);
  if (!fs.existsSync(path.join(otherRoot, 'bin', 'svc.mjs')))
    throw new Error(`BENCH_COMPARE_WITH: there is no bin/svc.mjs in ${otherRoot}`);
  const sides: Side[] = [];
  try {
    sides.push(await start('A (before)', otherRoot));
    sides.push(await start('B (after)', ROOT));
    const [a, b] = sides as [Side, Side];
    const lines = [
      `| scenario | A req/s | B req/s | B ÷ A, median (range) | A → B server CPU ms/req | A → B PostgreSQL CPU ms/req | A → B p99 ms | failed A / B |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const scenario of SCENARIOS) {
      if (ONLY && !ONLY.test(scenario.name)) continue;
      // As `npm run bench` does: on a server with autovacuum off, each scenario starts without the
      // dead rows and stale statistics of the ones before it, on both sides alike.
      for (const side of sides)
        if (await side.schema?.vacuumIfNoAutovacuum())
          log(`${side.label}: VACUUM (ANALYZE) of its schema before "${scenario.name}"`);
      const slices: Record<'A' | 'B', Slice[]> = { A: [], B: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // A B, then B A: each version goes first as often, and each B slice has an A slice beside it.
        const order: Array<['A' | 'B', Side]> =
          round % 2 === 0
            ? [
                ['A', a],
                ['B', b],
              ]
            : [
                ['B', b],
                ['A', a],
              ];
        for (const [name, side] of order) {
          const measured = await slice(side, scenario);
          slices[name].push(measured);
          log(
            `${scenario.name}: round ${round + 1} ${name}: ${Math.round(measured.rate)}/s, server ${fixed(measured.cpu.server)} ms, PostgreSQL ${fixed(measured.cpu.postgres)} ms, p99 ${measured.p99} ms${measured.failed ? `, ${measured.failed} failed` : ''}`,
          );
        }
      }
      const ratios = slices.B.map((s, i) => s.rate / slices.A[i]!.rate);
      const of = (list: Slice[], pick: (s: Slice) => number | null) => {
        const values = list.map(pick).filter((v): v is number => v !== null);
        return values.length ? median(values) : null;
      };
      lines.push(
        `| ${scenario.name} | ${Math.round(of(slices.A, (s) => s.rate)!)} | ${Math.round(of(slices.B, (s) => s.rate)!)} | ${fixed(median(ratios))} (${fixed(Math.min(...ratios))} to ${fixed(Math.max(...ratios))}) | ${fixed(of(slices.A, (s) => s.cpu.server))} → ${fixed(of(slices.B, (s) => s.cpu.server))} | ${fixed(of(slices.A, (s) => s.cpu.postgres))} → ${fixed(of(slices.B, (s) => s.cpu.postgres))} | ${of(slices.A, (s) => s.p99)} → ${of(slices.B, (s) => s.p99)} | ${slices.A.reduce((n, s) => n + s.failed, 0)} / ${slices.B.reduce((n, s) => n + s.failed, 0)} |`,
      );
    }
    process.stdout.write(
      `\nA: ${otherRoot}\nB: ${ROOT}\n${DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICE} s slices per version (each after 1 s unmeasured), Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown model'})\n\n${lines.join('\n')}\n`,
    );
  } finally {
    for (const side of sides) await stop(side);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
