/**
 * How fast one server settles a backlog of captures: `npm run bench:settlements`.
 *
 * A capture enqueues its settlement job, due SETTLEMENT_DELAY_SECONDS later (src/modules/
 * transactions/settlements). Here a server is started with that delay set to BENCH_SECONDS + 10, so
 * that the captures of a closed-loop run of BENCH_SECONDS (default 10) at BENCH_CONNECTIONS (default
 * 32; `POST /transactions` with `intent: capture`) all fall due after the run has ended. It then
 * prints, every 2 s, the settlements its worker ran (`svc_jobs_total` of `settle-transaction` in
 * `GET /metrics`) and those still unfinished (`svc_job_queue_depth`), until none is left, and the
 * median of those 2-s rates (the last interval, partly idle, left out). The server's JOB_CONCURRENCY (jobs one worker runs at once) comes from the environment,
 * so `JOB_CONCURRENCY=16 npm run bench:settlements` measures another setting.
 * BENCH_DATABASE_URL runs it on PostgreSQL (a throw-away schema), PGlite without it.
 *
 * The backlog that way depends on how fast that host captured and how much the worker settled while
 * the settlements fell due. BENCH_CAPTURES=N makes exactly N captures instead, with the settlements
 * due a week later; the server is then stopped, every settlement made due, and the same server
 * started again on the same database drains all N, so that two versions drain the same backlog.
 * Its worker starts before the server answers, so the rate of the whole drain is also read from
 * the jobs table once the server has stopped: the settlements over the time from the first one's
 * `succeeded` to the last one's. The time the restarted server took to answer `/readyz` is printed
 * too. BENCH_SETTLEMENTS_OF names another checkout (a directory with its node_modules, e.g. from
 * `git worktree add /tmp/before <commit>`) whose server is measured instead of this one's, with
 * this script.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { mintToken } from '../src/cli/token.ts';
import { openDb, type DbHandle } from '../src/db/client.ts';
import { positive } from './env.ts';
import { api } from './seed.ts';
import { log, metricsText, postgresSchema, startServer, stopServer } from './server.ts';
import { seedPayments } from './transactions.ts';

const JOB = 'settle-transaction';

/** This server's settlements that ran and succeeded (`svc_jobs_total`), 0 before the first. */
export function settledFrom(metrics: string): number {
  const match = new RegExp(
    `^svc_jobs_total\\{(?=[^}]*job="${JOB}")(?=[^}]*outcome="succeeded")[^}]*\\} (\\S+)$`,
    'm',
  ).exec(metrics);
  return match ? Number(match[1]) : 0;
}

/** Settlements not finished yet, due, scheduled or running, in the whole database (`svc_job_queue_depth`). */
export function settlementsLeftFrom(metrics: string): number {
  let left = 0;
  for (const match of metrics.matchAll(
    new RegExp(`^svc_job_queue_depth\\{(?=[^}]*job="${JOB}")[^}]*\\} (\\S+)$`, 'gm'),
  ))
    left += Number(match[1]);
  return left;
}

/** `fn` on the database the server used (the server stopped: PGlite's data directory is locked while it runs). */
async function onDatabase<T>(
  databaseUrl: string | null,
  dataDir: string,
  fn: (db: DbHandle['db']) => Promise<T>,
): Promise<T> {
  const handle = await openDb({ databaseUrl, dataDir, groupCommit: false });
  try {
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}

/** Makes every queued settlement due now. */
const makeSettlementsDue = (databaseUrl: string | null, dataDir: string) =>
  onDatabase(databaseUrl, dataDir, async (db) =>
    Number(
      (await sql`update jobs set run_at = now() where name = ${JOB} and status = 'queued'`.execute(db))
        .numAffectedRows ?? 0,
    ),
  );

/** The succeeded settlements and the seconds from the first one's end to the last one's (the jobs table). */
const drainSpan = (databaseUrl: string | null, dataDir: string) =>
  onDatabase(databaseUrl, dataDir, async (db) => {
    const { rows } = await sql<{ settled: number; seconds: number | null }>`
      select count(*)::int as settled, extract(epoch from max(updated_at) - min(updated_at))::float8 as seconds
      from jobs where name = ${JOB} and status = 'succeeded'`.execute(db);
    return { settled: rows[0]?.settled ?? 0, seconds: rows[0]?.seconds ?? 0 };
  });

async function main(): Promise<void> {
  const seconds = positive('BENCH_SECONDS', 10);
  const connections = positive('BENCH_CONNECTIONS', 32);
  const databaseUrl = process.env.BENCH_DATABASE_URL || null;
  const captures = process.env.BENCH_CAPTURES ? positive('BENCH_CAPTURES', 1) : null;
  const root = path.resolve(
    process.env.BENCH_SETTLEMENTS_OF || path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
  );
  const autocannon = createRequire(import.meta.url)('autocannon');
  // A fixed backlog: the settlements are due a week later, and made due at once after the captures.
  const delay = captures ? 7 * 24 * 3600 : seconds + 10;
  process.env.SETTLEMENT_DELAY_SECONDS = String(delay);
  const schema = databaseUrl ? await postgresSchema(databaseUrl) : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-settlements-'));
  let due: number | null = null;
  let stopped = false;
  let server = await startServer(root, dataDir, schema?.databaseUrl ?? null, []);
  try {
    const privateKeyPem = fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8');
    const token = await mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 3600 });
    const { cardId } = await seedPayments((method, url, body) => api(server, token, method, url, body));
    const started = Date.now();
    const result = await autocannon({
      url: `${server.baseUrl}/transactions`,
      method: 'POST',
      connections,
      ...(captures ? { amount: captures } : { duration: seconds }),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: 1000,
        currency: 'USD',
        intent: 'capture',
        payment_method: { method: 'id', id: cardId },
      }),
    });
    const lines = [
      `captures: ${result.requests.total} in ${result.duration} s at ${connections} connections, ${Math.round(result.requests.total / result.duration)}/s (${result.non2xx} not 2xx)`,
    ];
    log(lines[0]!);
    if (captures) {
      // The same server again, on the same database, once every settlement is due: its worker
      // drains the whole backlog, as one would after an outage.
      await stopServer(server.child);
      due = await makeSettlementsDue(databaseUrl ? schema!.databaseUrl : null, dataDir);
      log(`${due} settlements made due`);
      const starting = Date.now();
      server = await startServer(root, dataDir, schema?.databaseUrl ?? null, []);
      log(`the server answered /readyz ${((Date.now() - starting) / 1000).toFixed(1)} s after it was started`);
    } else {
      // The first settlements fall due `delay` s after the run started and the last about
      // `seconds` later: from then on, what is left is a backlog the worker drains as fast as it can.
      while (Date.now() - started < (delay + seconds) * 1000) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const metrics = async () => (await metricsText(server)) ?? '';
    const first = await metrics();
    let [settled, at, left] = [settledFrom(first), Date.now(), settlementsLeftFrom(first)];
    const backlog = due ?? left;
    const rates: number[] = [];
    while (left > 0 && rates.length < 300) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const now = await metrics();
      const [settledNow, time] = [settledFrom(now), Date.now()];
      left = settlementsLeftFrom(now);
      const rate = ((settledNow - settled) * 1000) / (time - at);
      // The interval in which the backlog ran out was partly idle: left out of the rate.
      if (left > 0) rates.push(rate);
      log(`${Math.round(rate)} settled/s, ${left} left`);
      [settled, at] = [settledNow, time];
    }
    let whole = '';
    if (captures) {
      // The worker starts before the server answers: the jobs' own times give the rate of the
      // whole drain.
      await stopServer(server.child);
      stopped = true;
      const span = await drainSpan(databaseUrl ? schema!.databaseUrl : null, dataDir);
      if (span.seconds > 0)
        whole = `; ${span.settled} settled in ${span.seconds.toFixed(1)} s from the first one's end to the last one's, ${Math.round((span.settled - 1) / span.seconds)}/s`;
    }
    const sorted = [...rates].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const setting = `JOB_CONCURRENCY=${process.env.JOB_CONCURRENCY ?? '4 (default)'}, ${databaseUrl ? 'PostgreSQL' : 'PGlite'}, ${os.cpus().length} CPUs${process.env.BENCH_SETTLEMENTS_OF ? `, the server of ${root}` : ''}`;
    if (rates.length === 0) {
      const kept = captures
        ? 'gone within 2 s of the server answering'
        : 'gone within 2 s: the worker kept up with the captures as they fell due';
      lines.push(
        `settlements: ${backlog === 0 ? 'no backlog' : `a backlog of ${backlog}, ${kept}`}${whole}, ${setting}`,
      );
    } else {
      const range = `${Math.round(sorted[0]!)} to ${Math.round(sorted[sorted.length - 1]!)}`;
      lines.push(
        `settlements: a backlog of ${backlog}, drained at ${Math.round(median)}/s (median of ${rates.length} 2-s intervals, ${range})${left > 0 ? `, ${left} still left` : ''}${whole}, ${setting}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (!stopped) await stopServer(server.child);
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
