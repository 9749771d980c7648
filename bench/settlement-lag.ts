/**
 * Whether one server's settlements keep up with a sustained capture load: `npm run bench:settlement-lag`.
 *
 * A server settles each capture SETTLEMENT_DELAY_SECONDS (here 1 unless the environment says
 * otherwise) after it. Captures (`POST /transactions`, `intent: capture`) are offered at a fixed
 * BENCH_RATE a second (default 1000; autocannon's `overallRate` over BENCH_CONNECTIONS, default 64)
 * for BENCH_SECONDS (default 30), while the same server's worker settles them. Every second it
 * reads `GET /metrics`: the settlements' `svc_job_queue_lag_seconds` (how long the oldest due one
 * has waited for a worker) and those due. It prints the captures the host answered, their latency,
 * the largest lag while the load ran and after, and how long the settlements took to catch up once
 * it stopped. The aim (issue 57): a lag under 10 s at 1,000 captures/s. A host that cannot answer
 * the offered rate shows it in the captures' own rate: the lag then is that of what it answered.
 * BENCH_DATABASE_URL runs it on PostgreSQL (a throw-away schema), PGlite without it;
 * BENCH_SETTLEMENTS_OF another checkout's server, JOB_CONCURRENCY the worker's setting,
 * BENCH_SERVER_NODE_ARGS node flags of the server (a profiler).
 * BENCH_WEBHOOK_MS=N subscribes the merchant account to a receiver in this process that answers
 * after N ms, and prints the largest lag of the webhook deliveries too (sampling goes on until
 * none is due either).
 */
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mintToken } from '../src/cli/token.ts';
import { positive } from './env.ts';
import { api } from './seed.ts';
import { log, metricsText, postgresSchema, startServer, stopServer, type Server } from './server.ts';
import { settledFrom } from './settlements.ts';
import { seedPayments } from './transactions.ts';

const JOB = 'settle-transaction';

/** How long the oldest due settlement has waited (0 when none waits), and how many are due. */
export function lagFrom(metrics: string, job = JOB): { lag: number; due: number } {
  const lag = new RegExp(`^svc_job_queue_lag_seconds\\{(?=[^}]*job="${job}")[^}]*\\} (\\S+)$`, 'm').exec(metrics);
  const due = new RegExp(`^svc_job_queue_depth\\{(?=[^}]*job="${job}")(?=[^}]*state="due")[^}]*\\} (\\S+)$`, 'm').exec(
    metrics,
  );
  return { lag: lag ? Number(lag[1]) : 0, due: due ? Number(due[1]) : 0 };
}

/**
 * Samples the lag every second until `done()` and then until nothing is due, webhook deliveries
 * included (at most `tailSeconds`).
 */
async function sample(server: Server, done: () => boolean, tailSeconds: number) {
  let [maxDuring, maxAfter, endedAt, caughtUpAt] = [0, 0, 0, 0];
  const deliveries = { during: 0, after: 0 };
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const metrics = (await metricsText(server)) ?? '';
    const { lag, due } = lagFrom(metrics);
    const delivery = lagFrom(metrics, 'deliver-webhook');
    const ended = done();
    if (!ended) {
      maxDuring = Math.max(maxDuring, lag);
      deliveries.during = Math.max(deliveries.during, delivery.lag);
    } else {
      endedAt ||= Date.now();
      maxAfter = Math.max(maxAfter, lag);
      deliveries.after = Math.max(deliveries.after, delivery.lag);
    }
    log(
      `lag ${lag.toFixed(1)} s, ${due} due; deliveries ${delivery.lag.toFixed(1)} s, ${delivery.due} due${ended ? ' (load over)' : ''}`,
    );
    if (ended && due === 0) caughtUpAt ||= Date.now();
    if ((caughtUpAt && delivery.due === 0) || (ended && Date.now() - endedAt > tailSeconds * 1000)) break;
  }
  return { maxDuring, maxAfter, catchUp: caughtUpAt ? (caughtUpAt - endedAt) / 1000 : null, deliveries };
}

/**
 * A webhook receiver in this process answering 204 after `ms`, and a subscription of the seeded
 * merchant account to it (BENCH_WEBHOOK_MS): each capture then makes deliveries, whose lag is
 * printed too.
 */
async function subscribe(server: Server, token: string, ms: number) {
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(204).end(), ms));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as { port: number };
  await api(server, token, 'POST', '/webhook-subscriptions', { url: `http://127.0.0.1:${port}/hooks` });
  return receiver;
}

async function main(): Promise<void> {
  const rate = positive('BENCH_RATE', 1000);
  const seconds = positive('BENCH_SECONDS', 30);
  const connections = positive('BENCH_CONNECTIONS', 64);
  const databaseUrl = process.env.BENCH_DATABASE_URL || null;
  const webhookMs = process.env.BENCH_WEBHOOK_MS ? Number(process.env.BENCH_WEBHOOK_MS) : null;
  const root = path.resolve(
    process.env.BENCH_SETTLEMENTS_OF || path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
  );
  process.env.SETTLEMENT_DELAY_SECONDS ||= '1';
  const autocannon = createRequire(import.meta.url)('autocannon');
  const schema = databaseUrl ? await postgresSchema(databaseUrl) : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-settlement-lag-'));
  // BENCH_SERVER_NODE_ARGS: node flags for the server (a profiler: `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const server = await startServer(root, dataDir, schema?.databaseUrl ?? null, nodeArgs);
  try {
    const privateKeyPem = fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8');
    const token = await mintToken({ privateKeyPem, scopes: ['*.read', '*.write'], lifetimeSeconds: 3600 });
    const { cardId } = await seedPayments((method, url, body) => api(server, token, method, url, body));
    const receiver = webhookMs === null ? null : await subscribe(server, token, webhookMs);
    let over = false;
    const load = autocannon({
      url: `${server.baseUrl}/transactions`,
      method: 'POST',
      connections,
      overallRate: rate,
      duration: seconds,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: 1000,
        currency: 'USD',
        intent: 'capture',
        payment_method: { method: 'id', id: cardId },
      }),
    }).then(
      (result: {
        requests: { total: number };
        duration: number;
        non2xx: number;
        latency: { p50: number; p99: number };
      }) => {
        over = true;
        return result;
      },
    );
    const lag = await sample(server, () => over, 120);
    const result = await load;
    receiver?.close();
    const settled = settledFrom((await metricsText(server)) ?? '');
    const setting = `JOB_CONCURRENCY=${process.env.JOB_CONCURRENCY ?? '4 (default)'}, JOB_NETWORK_CONCURRENCY=${process.env.JOB_NETWORK_CONCURRENCY ?? '128 (default)'}, SETTLEMENT_DELAY_SECONDS=${process.env.SETTLEMENT_DELAY_SECONDS}, ${databaseUrl ? 'PostgreSQL' : 'PGlite'}, ${os.cpus().length} CPUs${process.env.BENCH_SETTLEMENTS_OF ? `, the server of ${root}` : ''}`;
    process.stdout.write(
      `${[
        `captures: ${rate}/s offered for ${seconds} s, ${result.requests.total} answered, ${Math.round(result.requests.total / result.duration)}/s (${result.non2xx} not 2xx), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
        `settlements: ${settled} settled; largest lag ${lag.maxDuring.toFixed(1)} s under the load, ${lag.maxAfter.toFixed(1)} s after it; ${lag.catchUp === null ? 'still behind 120 s after the load' : `none due ${lag.catchUp.toFixed(0)} s after the load`}${webhookMs === null ? '' : `; webhook deliveries (a receiver answering in ${webhookMs} ms): largest lag ${lag.deliveries.during.toFixed(1)} s under the load, ${lag.deliveries.after.toFixed(1)} s after it`}, ${setting}`,
      ].join('\n')}\n`,
    );
  } finally {
    await stopServer(server.child);
    await schema?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
