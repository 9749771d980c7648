/**
 * Where a stored-card authorization's time goes, from its own `Server-Timing` header:
 * `BENCH_DATABASE_URL=… npm run bench:latency` (PGlite without it). Starts this checkout's server
 * (its `npm start` flags, then BENCH_SERVER_NODE_ARGS), makes a mock-card payment service and a
 * stored card, then for each count in BENCH_LATENCY_CONNECTIONS (default `1,8,32`) runs that many
 * closed loops of `POST /transactions` for BENCH_SECONDS (default 8) and prints, at the median and
 * the 99th percentile: the time the client waited; `app`, the server's time from its first hook;
 * `db`, its statements (a grouped statement's wait for its group included); `connector`; the server's
 * own work (`app` less both); and the time outside `app` (the HTTP parse before the first hook, the
 * event loop's queue, the network). Also the event loop's delay (prom-client's p99 less its 10 ms
 * resolution) and the GC pauses of each run, from `GET /metrics`.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mintToken } from '../src/cli/token.ts';
import { percentile } from './percentile.ts';
import { api } from './seed.ts';
import { gcSecondsFrom, log, metricsText, postgresSchema, startServer, stopServer } from './server.ts';
import { seedPayments } from './transactions.ts';

export interface Parts {
  totalMs: number;
  appMs: number;
  dbMs: number;
  connectorMs: number;
}

/** `db`, `connector` and `app` durations of a `Server-Timing` value (0 for one it lacks); null without `app`. */
export function serverTimingParts(header: string | undefined): Omit<Parts, 'totalMs'> | null {
  if (!header) return null;
  const durations = new Map<string, number>();
  for (const metric of header.split(',')) {
    const [name, ...params] = metric.trim().split(';');
    const dur = params.map((p) => /^dur=([0-9.]+)$/.exec(p.trim())).find(Boolean);
    if (name && dur) durations.set(name.trim(), Number(dur[1]));
  }
  const app = durations.get('app');
  return app === undefined
    ? null
    : { appMs: app, dbMs: durations.get('db') ?? 0, connectorMs: durations.get('connector') ?? 0 };
}

/** One line: each part at p50/p99 over the requests. */
export function describeParts(parts: Parts[]): string {
  const at = (f: (p: Parts) => number) =>
    `${percentile(parts.map(f), 0.5).toFixed(1)}/${percentile(parts.map(f), 0.99).toFixed(1)}`;
  return [
    `client ${at((p) => p.totalMs)}`,
    `app ${at((p) => p.appMs)}`,
    `db ${at((p) => p.dbMs)}`,
    `connector ${at((p) => p.connectorMs)}`,
    `server's own ${at((p) => p.appMs - p.dbMs - p.connectorMs)}`,
    `outside app ${at((p) => p.totalMs - p.appMs)}`,
  ].join(', ');
}

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const counts = (process.env.BENCH_LATENCY_CONNECTIONS ?? '1,8,32').split(',').map(Number);
  if (!(seconds > 0) || counts.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('BENCH_SECONDS must be positive and BENCH_LATENCY_CONNECTIONS whole numbers ≥ 1, comma-separated');
  const url = process.env.BENCH_DATABASE_URL || null;
  const schema = url ? await postgresSchema(url) : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-latency-'));
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const server = await startServer(root, dataDir, schema?.databaseUrl ?? null, nodeArgs);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(...counts) });
  try {
    const token = await mintToken({
      privateKeyPem: fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8'),
      scopes: ['*.read', '*.write'],
      lifetimeSeconds: 3600,
    });
    const { cardId } = await seedPayments((method, u, body) => api(server, token, method, u, body));
    await schema?.analyze();
    const body = JSON.stringify({
      amount: 100,
      currency: 'USD',
      intent: 'authorize',
      payment_method: { method: 'id', id: cardId },
    });
    const { port } = new URL(server.baseUrl);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const one = () =>
      new Promise<Parts>((resolve, reject) => {
        const started = performance.now();
        const req = http.request(
          { agent, host: '127.0.0.1', port, method: 'POST', path: '/transactions', headers },
          (res) => {
            res.resume();
            res.on('end', () => {
              const parts = serverTimingParts(res.headers['server-timing'] as string | undefined);
              if (res.statusCode !== 201 || !parts)
                reject(new Error(`POST /transactions answered ${res.statusCode} without the expected Server-Timing`));
              else resolve({ totalMs: performance.now() - started, ...parts });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    log(
      `this checkout (${root}): ${url ? 'PostgreSQL' : 'PGlite'}, ${seconds} s per count, npm start's node flags${nodeArgs.length ? ` then ${nodeArgs.join(' ')}` : ''}`,
    );
    for (const connections of counts) {
      // This read also starts the event loop's histogram afresh: prom-client resets it at each read.
      const gcBefore = gcSecondsFrom((await metricsText(server)) ?? '') ?? NaN;
      const parts: Parts[] = [];
      const end = Date.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (Date.now() < end) parts.push(await one());
        }),
      );
      const after = (await metricsText(server)) ?? '';
      const lagP99 = (gauge(after, 'nodejs_eventloop_lag_p99_seconds') - 0.01) * 1000;
      const gcMs = ((gcSecondsFrom(after) ?? NaN) - gcBefore) * 1000;
      console.log(
        `${connections} connection${connections === 1 ? '' : 's'}: ${Math.round(parts.length / seconds)}/s; ms p50/p99: ${describeParts(parts)}; event loop delay p99 ${lagP99.toFixed(1)} ms; GC pauses ${(gcMs / parts.length).toFixed(3)} ms/request`,
      );
    }
  } finally {
    agent.destroy();
    await stopServer(server.child);
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
