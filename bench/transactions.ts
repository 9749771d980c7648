/**
 * Transaction scenarios of the benchmark (bench/run.ts): authorize with a stored card (a reused
 * token, then a new token per request, then a new idempotency key per request, then at a fixed
 * offered rate, evenly paced and in autocannon's bursts), authorize and capture in one request, a
 * capture of each transaction authorized before, and refunds spread over captured transactions. Each request is a real engine run:
 * routing, the vault, the mock-card connector, the state machine, events, audit and, where a key is
 * sent, the idempotency record.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { mintToken } from '../src/cli/token.ts';
import { api } from './seed.ts';
import { eachOnce } from './each-once.ts';
import { paced } from './paced.ts';
import { p99BySecond } from './percentile.ts';
import { log, type Server } from './server.ts';
import { recordRequest, referenceTransactions, replayStatements } from './sql-alone.ts';
import { withWarmup } from './warmup.ts';

interface Request {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; json: any }>;
type Cannon = (options: Record<string, unknown>) => PromiseLike<any> & { stop(): void };

export interface TransactionBenchContext {
  baseUrl: string;
  token: string;
  pool: string[];
  connections: number;
  seconds: number;
  api: Api;
  autocannon: Cannon;
  /** The offered rate of the fixed-rate authorization scenario, and its connections. */
  rate: number;
  rateConnections: number;
  /** Seconds of the evenly paced load sent before its measured run (0: none). */
  rateWarmup: number;
  /** Seconds of a closed-loop row's own load sent before its measured run (0: none; BENCH_WARMUP). */
  warmup: number;
  /** Refreshes the planner's statistics after the seed (PostgreSQL: ANALYZE; PGlite: its own job). */
  analyze: () => Promise<void>;
  /** PostgreSQL only: the server's data directory and database, for the reference and the SQL replay (bench/sql-alone.ts). */
  postgres: { dataDir: string; databaseUrl: string } | null;
  /**
   * Whether the SQL replay runs (PostgreSQL only): it records the request through this checkout's
   * app, so it says nothing of a server run from another checkout (bench/run.ts, BENCH_COMPARE_WITH).
   */
  replaySql: boolean;
}

/** The transaction's id in a response body (the resource starts with its type and id). */
const ID_IN_BODY = /^\{"type":"transaction","id":"([0-9a-f-]{36})"/;

async function must(api: Api, method: string, url: string, body: unknown, status: number): Promise<any> {
  const res = await api(method, url, body);
  if (res.status !== status) throw new Error(`${method} ${url} answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json;
}

/** A mock-card payment service and a stored card in the default merchant account. */
export async function seedPayments(api: Api): Promise<{ cardId: string }> {
  await must(
    api,
    'POST',
    '/payment-services',
    {
      display_name: 'Bench cards',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'bench' }],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    },
    201,
  );
  const card = await must(
    api,
    'POST',
    '/payment-methods',
    { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
    201,
  );
  return { cardId: card.id };
}

/** Captured transactions to refund one unit at a time, round robin (no single hot row). */
export async function capturedTransactions(api: Api, cardId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const txn = await must(
        api,
        'POST',
        '/transactions',
        { amount: 1_000_000, currency: 'USD', intent: 'capture', payment_method: { method: 'id', id: cardId } },
        201,
      );
      ids.push(txn.id);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

const jsonHeaders = (ctx: TransactionBenchContext) => ({
  authorization: `Bearer ${ctx.token}`,
  'content-type': 'application/json',
});

function post(ctx: TransactionBenchContext, path: string, body: unknown, extra: Record<string, unknown> = {}) {
  return ctx.autocannon({
    url: `${ctx.baseUrl}${path}`,
    method: 'POST',
    connections: ctx.connections,
    duration: ctx.seconds,
    headers: jsonHeaders(ctx),
    body: JSON.stringify(body),
    ...extra,
  });
}

/** A closed-loop row's measured run, and the same load for `ctx.warmup` seconds first (none when 0). */
function closedLoop(ctx: TransactionBenchContext, path: string, body: unknown, extra: Record<string, unknown> = {}) {
  return withWarmup(ctx.seconds, ctx.warmup, (duration) => post(ctx, path, body, { ...extra, duration }));
}

export async function transactionScenarios(
  ctx: TransactionBenchContext,
  run: (
    scenario: string,
    fn: () => Promise<{ result: any; note?: string }>,
    warmup?: () => Promise<void>,
  ) => Promise<void>,
): Promise<void> {
  const { cardId } = await seedPayments(ctx.api);
  const authorize = { amount: 1000, currency: 'USD', payment_method: { method: 'id', id: cardId } };
  // A history to run against, as in a live account: captured transactions (refunded below), then
  // fresh statistics, as autovacuum would have them. Plans chosen on empty tables are no guide.
  const ids = await capturedTransactions(ctx.api, cardId, 500);
  await ctx.analyze();
  // The reference right before the transaction rows, in the state they start from: measured after
  // them it reads about half (the writes they leave behind), and this host's speed drifts over hours.
  if (ctx.postgres)
    await run(REFERENCE_SCENARIO, async () => ({
      result: await referenceTransactions(ctx.postgres!.databaseUrl, ctx.connections, ctx.seconds),
    }));
  // The transactions it authorizes are captured one by one further down.
  const authorized: string[] = [];
  const keepId = (status: number, body: string) => {
    const id = status === 201 ? ID_IN_BODY.exec(body)?.[1] : undefined;
    if (id) authorized.push(id);
  };
  // Its warm-up's transactions are not kept: the capture row captures the measured run's.
  const [authorizeKept] = closedLoop(ctx, '/transactions', authorize, { requests: [{ onResponse: keepId }] });
  const [, authorizeWarmup] = closedLoop(ctx, '/transactions', authorize);
  await run('POST /transactions, stored card, authorize (one token)', authorizeKept, authorizeWarmup);
  await run('POST /transactions, stored card, authorize (new token per request)', async () => ({
    result: await eachOnce(ctx.pool, ({ amount, next, onResponse }) =>
      post(ctx, '/transactions', authorize, {
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
    ),
    note: `${ctx.pool.length} tokens`,
  }));
  // Every request a first attempt: a claim (one insert), then the answer with the stored response in its statement.
  await run(
    'POST /transactions, stored card, authorize (a new idempotency-key per request)',
    ...closedLoop(ctx, '/transactions', authorize, {
      requests: [
        {
          setupRequest: (request: Request) => ({
            ...request,
            headers: { ...request.headers, 'idempotency-key': randomUUID() },
          }),
        },
      ],
    }),
  );
  // The latency at a steady offered load: requests evenly spaced whatever the answers (open loop),
  // each timed from when it was due (bench/paced.ts), on enough connections that one is mostly free.
  const evenly = {
    baseUrl: ctx.baseUrl,
    method: 'POST',
    path: '/transactions',
    headers: jsonHeaders(ctx),
    body: JSON.stringify(authorize),
    rate: ctx.rate,
    connections: ctx.rateConnections,
  };
  await run(
    `POST /transactions, stored card, authorize at ${ctx.rate} req/s offered, evenly paced (up to ${ctx.rateConnections} connections)`,
    async () => {
      const points: Array<[number, number]> = [];
      const result = await paced({
        ...evenly,
        seconds: ctx.seconds,
        onAnswer: (due, latency) => points.push([due, latency]),
      });
      log(
        `evenly paced ${ctx.rate}/s, p99 ms of each second: ${p99BySecond(points)
          .map(({ p99 }) => Math.round(p99))
          .join(', ')}`,
      );
      return { result, note: ctx.rateWarmup > 0 ? `after ${ctx.rateWarmup} s of the same load` : undefined };
    },
    // The same load first, unmeasured: a cold server's first seconds queue (BENCH_RATE_WARMUP).
    ctx.rateWarmup > 0 ? async () => void (await paced({ ...evenly, seconds: ctx.rateWarmup })) : undefined,
  );

  // The same rate as autocannon offers it (`overallRate`): each connection sends its share of a
  // second as fast as it can when the second starts, so these are a burst's latencies (bench/paced.ts).
  await run(
    `POST /transactions, stored card, authorize at ${ctx.rate} req/s in bursts once a second (autocannon overallRate, ${ctx.rateConnections} connections)`,
    async () => ({
      result: await post(ctx, '/transactions', authorize, { overallRate: ctx.rate, connections: ctx.rateConnections }),
    }),
  );
  await run(
    'POST /transactions, stored card, intent capture (authorize + capture)',
    ...closedLoop(ctx, '/transactions', { ...authorize, intent: 'capture' }),
  );
  await run('POST /transactions/{id}/capture, the whole amount of a transaction authorized above', async () => ({
    result: await eachOnce(authorized, ({ amount, next, onResponse }) =>
      post(
        ctx,
        '/transactions/x/capture',
        {},
        {
          amount,
          requests: [
            {
              setupRequest: (request: Request) => ({ ...request, path: `/transactions/${next()}/capture` }),
              onResponse,
            },
          ],
        },
      ),
    ),
    note: `${authorized.length} transactions`,
  }));
  let turn = 0;
  await run(
    'POST /transactions/{id}/refunds, 1 unit, over 500 captured transactions',
    ...closedLoop(
      ctx,
      '/transactions/x/refunds',
      { amount: 1 },
      {
        requests: [
          {
            setupRequest: (request: Request) => ({
              ...request,
              path: `/transactions/${ids[turn++ % ids.length]}/refunds`,
            }),
          },
        ],
      },
    ),
  );
  // The same with a key per request: the claim, then the answer with the stored response in its statement.
  await run(
    'POST /transactions/{id}/refunds, 1 unit, a new idempotency-key per request',
    ...closedLoop(
      ctx,
      '/transactions/x/refunds',
      { amount: 1 },
      {
        requests: [
          {
            setupRequest: (request: Request) => ({
              ...request,
              path: `/transactions/${ids[turn++ % ids.length]}/refunds`,
              headers: { ...request.headers, 'idempotency-key': randomUUID() },
            }),
          },
        ],
      },
    ),
  );
  if (!ctx.postgres || !ctx.replaySql) return;
  const { dataDir, databaseUrl } = ctx.postgres;
  const recorded = await recordRequest(dataDir, databaseUrl, {
    url: '/transactions',
    token: ctx.token,
    body: authorize,
  });
  await run(
    `The SQL of one stored-card authorization alone (${recorded.statements.length} statements replayed by bare pg clients, no HTTP)`,
    async () => ({
      result: await replayStatements(databaseUrl, recorded, ctx.connections, ctx.seconds),
    }),
  );
}

/** The plain transaction the throughput aim is measured against (bench/sql-alone.ts); bench/run.ts gives every row as a ratio to it. */
export const REFERENCE_SCENARIO =
  'Reference: a plain transaction, BEGIN + 4 prepared inserts + COMMIT (bare pg clients, no HTTP)';

/**
 * A token of all scopes from a started server's data directory, its payment service and stored
 * card seeded, and the stored-card authorization the outside benchmarks send (bench:outside, bench:wal).
 */
export async function storedCardAuthorization(
  server: Server,
  dataDir: string,
): Promise<{ token: string; headers: Record<string, string>; body: string }> {
  const token = await mintToken({
    privateKeyPem: fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8'),
    scopes: ['*.read', '*.write'],
    lifetimeSeconds: 3600,
  });
  const { cardId } = await seedPayments((method, u, body) => api(server, token, method, u, body));
  return {
    token,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: 100,
      currency: 'USD',
      intent: 'authorize',
      payment_method: { method: 'id', id: cardId },
    }),
  };
}
