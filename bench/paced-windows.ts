/**
 * What the slow moments of an evenly paced authorization row hold:
 * `BENCH_DATABASE_URL=… npm run bench:windows` (PostgreSQL only). Starts this checkout's server
 * (its `npm start` flags, bench/gc-pauses.mjs, then BENCH_SERVER_NODE_ARGS) on a throw-away schema,
 * makes a mock-card payment service and a stored card, and sends stored-card authorizations evenly
 * paced at BENCH_RATE (default 1,000/s) over up to BENCH_RATE_CONNECTIONS (64) sockets:
 * BENCH_RATE_WARMUP seconds (3), `VACUUM (ANALYZE)` when autovacuum is off (as the benchmark does
 * before each row), 3 s more, then BENCH_SECONDS (20) measured. Meanwhile one connection samples,
 * every BENCH_SAMPLE_MS (20), the wait events of the database's active backends, and /proc gives the
 * CPU of the server, of PostgreSQL's processes (those `pg_stat_activity` lists once the warm-up has
 * opened the pool's connections) and of the host. Prints one line per BENCH_WINDOW_MS (250) window
 * (requests by the time they were due: p50, p99, `*` over BENCH_AIM_MS (50), then the p99 of their
 * time in the server (`Server-Timing` `app`) and of how late the generator wrote them; the GC pauses; mean
 * active backends; CPU in % of one CPU; the wait events seen), then for each wait event the mean
 * p99 of the windows that saw it against the others'. The sampling costs CPU of its own (about a
 * tenth of a CPU): compare its rows with each other, not with `npm run bench`'s.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { mintToken } from '../src/cli/token.ts';
import { hostBusyTicks, processTicksOf, TICKS_PER_SECOND } from './cpu.ts';
import { positive } from './env.ts';
import { parsePauses } from './gc-summary.ts';
import { paced } from './paced.ts';
import { percentile } from './percentile.ts';
import { serverTimingParts } from './latency-parts.ts';
import { api } from './seed.ts';
import { log, postgresSchema, startServer, stopServer } from './server.ts';
import { seedPayments } from './transactions.ts';
import { fixed, formatWindow, waitsAgainstP99, windowsOf, type Point, type Sample } from './windows.ts';

/** The cluster's WAL counters (pg_stat_wal: the whole cluster, so run nothing else meanwhile) and pg_wal's file count. */
async function walStats(client: pg.Client): Promise<{ records: number; fpi: number; bytes: number; files: number }> {
  const { rows } = await client.query<{ records: string; fpi: string; bytes: string; files: string }>(
    'select wal_records as records, wal_fpi as fpi, wal_bytes as bytes, (select count(*) from pg_ls_waldir()) as files from pg_stat_wal',
  );
  const row = rows[0]!;
  return { records: Number(row.records), fpi: Number(row.fpi), bytes: Number(row.bytes), files: Number(row.files) };
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL must name a PostgreSQL database (this script reads its backends)');
  const rate = positive('BENCH_RATE', 1000);
  const seconds = positive('BENCH_SECONDS', 20);
  const warmup = positive('BENCH_RATE_WARMUP', 3);
  const windowMs = positive('BENCH_WINDOW_MS', 250);
  const sampleMs = positive('BENCH_SAMPLE_MS', 20);
  const aimMs = positive('BENCH_AIM_MS', 50);
  const connections = positive('BENCH_RATE_CONNECTIONS', 64);
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const schema = await postgresSchema(url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-windows-'));
  const gcDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-windows-gc-'));
  process.env.BENCH_GC_LOG_DIR = gcDir;
  const nodeArgs = [
    '--import',
    path.join(root, 'bench', 'gc-pauses.mjs'),
    ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  ];
  const server = await startServer(root, dataDir, schema.databaseUrl, nodeArgs);
  const client = new pg.Client({ connectionString: schema.databaseUrl });
  try {
    const token = await mintToken({
      privateKeyPem: fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8'),
      scopes: ['*.read', '*.write'],
      lifetimeSeconds: 3600,
    });
    const { cardId } = await seedPayments((method, u, body) => api(server, token, method, u, body));
    await schema.analyze();
    const load = {
      baseUrl: server.baseUrl,
      method: 'POST',
      path: '/transactions',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: 100,
        currency: 'USD',
        intent: 'authorize',
        payment_method: { method: 'id', id: cardId },
      }),
      rate,
      connections,
    };
    log(
      `this checkout (${root}): ${rate}/s evenly paced, ${warmup} s + VACUUM + 3 s of warm-up, then ${seconds} s in ${windowMs}-ms windows`,
    );
    await paced({ ...load, seconds: warmup });
    await schema.vacuumIfNoAutovacuum();
    await paced({ ...load, seconds: 3 });

    await client.connect();
    const { rows: processes } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where pid <> pg_backend_pid()',
    );
    const postgresPids = processes.map((row) => row.pid);
    const lastTicks = new Map<number, number>();
    const samples: Sample[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const at = Date.now();
        const { rows } = await client.query<{ wait: string | null }>(
          "select wait_event as wait from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'active'",
        );
        let postgresTicks = 0;
        for (const pid of postgresPids) {
          const ticks = processTicksOf(pid) ?? lastTicks.get(pid) ?? 0;
          lastTicks.set(pid, ticks);
          postgresTicks += ticks;
        }
        samples.push({
          at,
          waits: rows.map((row) => row.wait ?? 'cpu'),
          serverTicks: processTicksOf(server.child.pid!) ?? NaN,
          postgresTicks,
          hostBusyTicks: hostBusyTicks() ?? NaN,
        });
        await new Promise((resolve) => setTimeout(resolve, sampleMs));
      }
    })();
    const walBefore = await walStats(client);
    const points: Point[] = [];
    const startMs = Date.now();
    log(`measuring from ${new Date(startMs).toISOString()} (window 0.00 s)`);
    const result = await paced({
      ...load,
      seconds,
      onAnswer: (dueMs, latencyMs, { lateMs, head }) =>
        points.push([
          startMs + dueMs,
          latencyMs,
          serverTimingParts(/\r\nserver-timing: *([^\r]*)/.exec(head)?.[1])?.appMs,
          lateMs,
        ]),
    });
    sampling = false;
    await sampler;
    const walAfter = await walStats(client);
    await stopServer(server.child);
    const gc = fs.readdirSync(gcDir).flatMap((file) => parsePauses(fs.readFileSync(path.join(gcDir, file), 'utf8')));
    const windows = windowsOf(points, gc, samples, {
      startMs,
      endMs: startMs + seconds * 1000,
      windowMs,
      ticksPerSecond: TICKS_PER_SECOND,
    });
    const slow = windows.filter((w) => w.p99 > aimMs).length;
    console.log(
      `${Math.round(result.requests.average)}/s answered of ${rate}/s offered; p50 ${percentile(
        points.map((p) => p[1]),
        0.5,
      ).toFixed(0)} ms, p99 ${percentile(
        points.map((p) => p[1]),
        0.99,
      ).toFixed(
        0,
      )} ms; ${slow} of ${windows.length} windows over ${aimMs} ms at p99; ${result.errors + result.non2xx} errors or non-2xx`,
    );
    const at = (index: 1 | 2 | 3, q: number) =>
      percentile(
        points.map((p) => p[index]).filter((v): v is number => v !== undefined),
        q,
      ).toFixed(1);
    console.log(
      `in the server (Server-Timing app) p50 ${at(2, 0.5)} ms, p99 ${at(2, 0.99)} ms; written late by the generator p50 ${at(3, 0.5)} ms, p99 ${at(3, 0.99)} ms`,
    );
    const per = (n: number) => (n / points.length).toFixed(1);
    console.log(
      `WAL per answer: ${per(walAfter.records - walBefore.records)} records, ${per(walAfter.fpi - walBefore.fpi)} full-page images, ${per(walAfter.bytes - walBefore.bytes)} bytes; files in pg_wal ${walBefore.files} → ${walAfter.files} (a checkpoint removes or recycles some)`,
    );
    for (const w of windows) console.log(formatWindow(w, aimMs));
    console.log("\nwait event: windows that saw it, their mean p99 ms, the others' mean p99 ms");
    for (const row of waitsAgainstP99(windows))
      console.log(`${row.wait}: ${row.with}, ${fixed(row.withMean)}, ${fixed(row.withoutMean)}`);
  } finally {
    await client.end().catch(() => undefined);
    await stopServer(server.child);
    await schema.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(gcDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
