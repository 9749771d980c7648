/**
 * Two PostgreSQL-only measurements that put the HTTP figures in proportion (bench/run.ts):
 *
 * - The reference the transaction engine's throughput aim is stated against: a plain transaction
 *   of four inserts (BEGIN, 4 prepared inserts into a table with only a primary key, COMMIT) from a
 *   bare `pg` client over the same number of connections. It tells what this machine does at the
 *   time of the run, so figures of different hosts compare as ratios to it.
 * - The SQL of one authorization on its own: one `POST /transactions` with a stored card runs
 *   in-process through the real app (same schema, same vault key), every statement it sends is
 *   recorded at the `pg` client, and those statements are then replayed by bare clients with fresh
 *   ids (the same rows, the same plans, no HTTP, no framework, no query building). It is what the
 *   database side of an authorization costs, and the most an authorization could reach here.
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/deps.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { cpuTicks, perRequest, type CpuFigures, type CpuReading } from './cpu.ts';

export interface Statement {
  text: string;
  values: unknown[];
}

/** A run of bare clients: what the table needs of autocannon's result. */
export interface LoopResult {
  requests: { total: number; average: number; p50: number; p99: number };
  latency: { total: number; average: number; p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  /**
   * Read while the clients are still connected (a backend that exited takes its CPU time with it).
   * No server figure: the server takes no part.
   */
  cpu: CpuFigures;
}

/** `step` over `connections` clients for `seconds`; latency per step in ms. */
async function loop(
  databaseUrl: string,
  connections: number,
  seconds: number,
  step: (client: pg.Client) => Promise<void>,
): Promise<LoopResult> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      return client;
    }),
  );
  const latencies: number[] = [];
  const before = cpuTicks(undefined, true);
  const began = Date.now();
  const end = began + seconds * 1000;
  let after: CpuReading;
  let duration: number;
  try {
    await Promise.all(
      clients.map(async (client) => {
        while (Date.now() < end) {
          const t0 = performance.now();
          await step(client);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    duration = (Date.now() - began) / 1000;
    after = cpuTicks(undefined, true);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const total = latencies.length;
  const meanLatency = latencies.reduce((sum, ms) => sum + ms, 0) / Math.max(total, 1);
  const requests = { total, average: total / duration, p50: at(0.5), p99: at(0.99) };
  return {
    requests,
    latency: { ...requests, average: meanLatency },
    duration,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodeStats: {},
    cpu: { ...perRequest(before, after, total), server: null },
  };
}

/** The plain four-insert transaction (a table of its own, dropped afterwards). */
export async function referenceTransactions(
  databaseUrl: string,
  connections: number,
  seconds: number,
): Promise<LoopResult> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  // Dirty buffers left by the rows before it (the seed, earlier scenarios) are written now, not during
  // it. CHECKPOINT needs a superuser or pg_checkpoint; without either the reference runs without it.
  await admin.query('checkpoint').catch(() => undefined);
  await admin.query(
    'create table bench_reference (id uuid primary key, n int not null, note text not null, created_at timestamptz not null default now())',
  );
  try {
    return await loop(databaseUrl, connections, seconds, async (client) => {
      await client.query('begin');
      for (let n = 0; n < 4; n++)
        await client.query({
          name: 'bench_reference_insert',
          text: 'insert into bench_reference (id, n, note) values ($1, $2, $3)',
          values: [uuidv7(), n, 'reference'],
        });
      await client.query('commit');
    });
  } finally {
    await admin.query('drop table bench_reference');
    await admin.end();
  }
}

/** Records the statements one request makes, in-process through the real app (the server's data directory and database). */
export async function recordRequest(
  dataDir: string,
  databaseUrl: string,
  request: { url: string; token: string; body: unknown },
): Promise<{ statements: Statement[]; startedAt: number; endedAt: number }> {
  const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
  const runtime = await createRuntime(config, { migrate: false, poolSize: 1 });
  const app = await buildApp(runtime.deps, { logStream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  const send = async () => {
    const res = await app.inject({
      method: 'POST',
      url: request.url,
      headers: { authorization: `Bearer ${request.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(request.body),
    });
    if (res.statusCode !== 201) throw new Error(`the recorded request answered ${res.statusCode}: ${res.body}`);
  };
  type Query = (this: pg.Client, ...args: unknown[]) => unknown;
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  const statements: Statement[] = [];
  try {
    // Warm: caches filled and hot statements named, as on a running server.
    for (let i = 0; i < 4; i++) await send();
    prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [config, values] = args as [string | { text?: string; values?: unknown[] }, unknown[] | undefined];
      if (typeof config === 'string') statements.push({ text: config, values: values ?? [] });
      else if (config && typeof config.text === 'string')
        statements.push({ text: config.text, values: config.values ?? values ?? [] });
      return original.apply(this, args);
    };
    const startedAt = Date.now();
    await send();
    const endedAt = Date.now();
    return { statements, startedAt, endedAt };
  } finally {
    prototype.query = original;
    await app.close();
    await runtime.close();
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The ids the request made (UUIDv7 whose time falls within it), wherever they appear in the values. */
function idsMadeBetween(statements: Statement[], startedAt: number, endedAt: number): string[] {
  const found = new Set<string>();
  for (const { values } of statements) {
    for (const value of values) {
      if (typeof value !== 'string') continue;
      for (const [id] of value.matchAll(UUID)) {
        const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
        if (ms >= startedAt - 1 && ms <= endedAt + 1) found.add(id);
      }
    }
  }
  return [...found];
}

/** Replays `statements` as one unit per step, with the request's own ids replaced by fresh ones each time. */
export async function replayStatements(
  databaseUrl: string,
  recorded: { statements: Statement[]; startedAt: number; endedAt: number },
  connections: number,
  seconds: number,
): Promise<LoopResult> {
  const ids = idsMadeBetween(recorded.statements, recorded.startedAt, recorded.endedAt);
  if (ids.length === 0)
    throw new Error('the recorded request made no ids: nothing to replace, every replay would collide');
  const pattern = new RegExp(ids.join('|'), 'g');
  const named = recorded.statements.map((s, i) => ({ name: `bench_replay_${i}`, text: s.text, values: s.values }));
  return loop(databaseUrl, connections, seconds, async (client) => {
    const fresh = new Map(ids.map((id) => [id, uuidv7()]));
    const swap = (value: unknown) =>
      typeof value === 'string' ? value.replace(pattern, (id) => fresh.get(id)!) : value;
    for (const s of named) await client.query({ name: s.name, text: s.text, values: s.values.map(swap) });
  });
}
