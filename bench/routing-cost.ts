/**
 * The server CPU smart routing adds to an authorization (issue "Smart routing": under 0.1 ms), a
 * group of `npm run bench` (bench/run.ts). Three merchant accounts with the same three mock-card
 * services (each with a fee schedule) and a stored card, each with one `route-transaction` rule
 * over the three: `static` (the listed order), `success_rate` and `least_cost`. The same stored-card
 * authorization is sent to one account at a time in interleaved slices, static, success rate, least
 * cost, then the other way round, `BENCH_ROUNDS` (default 6) times, each slice `BENCH_SLICE_SECONDS`
 * (default 5) measured after one unmeasured second of its load (the names, meaning and defaults of
 * bench/interleave.ts; about 110 s at the end of the run). One
 * server serves all three, so a drift of the host falls on each alike; each strategy's slice is
 * compared with the static slice of its round (bench/routing-cost-summary.ts).
 *
 * What the difference holds: the strategy's own work (the statistics' view, its cache reloads, the
 * chooser or the expected costs, and the larger decision trace written with the transaction). The
 * statistics' record and the circuit breakers' tally and view run for every authorization whatever
 * the rule's strategy, so they are on both sides (breakers on: the server's default).
 */
import { cpuTicks, perRequest } from './cpu.ts';
import { account, call, type FlowBenchContext, MERCHANT_HEADER } from './flows.ts';
import type { LoadResult } from './paced.ts';
import { type CostSlice, costTable, median, type VariantSlices } from './routing-cost-summary.ts';
import { log, type PostgresSchema, type Server } from './server.ts';
import { positive } from './env.ts';

type Cannon = (options: Record<string, unknown>) => PromiseLike<any> & { stop(): void };

export interface RoutingCostContext {
  baseUrl: string;
  token: string;
  connections: number;
  autocannon: Cannon;
  sliceSeconds: number;
  rounds: number;
  /** Seconds of each variant's load sent once before the first round, not measured (BENCH_WARMUP). */
  warmup: number;
  serverPid: number | undefined;
  /** Whether the server uses a PostgreSQL server (its backends' CPU is read too). */
  postgres: boolean;
}

/** What bench/run.ts gives the group. */
export interface RoutingCostGroupContext {
  server: Server;
  schema: PostgresSchema | null;
  token: string;
  connections: number;
  autocannon: Cannon;
  /** BENCH_WARMUP: seconds of each variant's load before the first round. */
  warmup: number;
  /** BENCH_ONLY. */
  only: RegExp | null;
  /** The run's label in the log. */
  label: string;
}

/** The issue's aim: the extra server CPU per authorization of smart routing, in ms. */
export const ROUTING_COST_AIM_MS = 0.1;

/** A variant's measured slices, with autocannon's result of each (bench/run.ts builds its table row from them). */
export interface RoutingCostVariant extends VariantSlices {
  scenario: string;
  results: any[];
  postgresMs: Array<number | null>;
  idleMs: Array<number | null>;
}

const STRATEGIES = ['static', 'success_rate', 'least_cost'] as const;
type Strategy = (typeof STRATEGIES)[number];

/** The name of a variant's row in the table (BENCH_ONLY matches it). */
export const routingCostScenario = (strategy: Strategy) =>
  `POST /transactions, stored card, authorize, route rule strategy ${strategy} over 3 services (smart routing cost, interleaved)`;

/** Fees of the three services: percent and fixed fee in cents, Amex apart (as bench/routing-market.ts). */
const FEES = [
  { percent: '2.9', amexPercent: '3.5', fixed: 30 },
  { percent: '2.5', amexPercent: '3.2', fixed: 25 },
  { percent: '1.9', amexPercent: '2.9', fixed: 15 },
];

function ruleOf(strategy: Strategy, services: string[]) {
  const learning = { min_samples: 20, window_minutes: 60 };
  const extra =
    strategy === 'success_rate'
      ? { strategy, exploration_percent: 10, ...learning }
      : strategy === 'least_cost'
        ? { strategy, cost_margin_percent: 0.5, ...learning }
        : {};
  return { conditions: [], outcome: { payment_service_ids: services, ...extra } };
}

async function setUp(ctx: FlowBenchContext, strategy: Strategy, suffix: string) {
  const merchant = `bench-route-${strategy.replace('_', '-')}-${suffix}`;
  const { services, cardId } = await account(ctx, merchant, [[], [], []]);
  for (const [i, id] of services.entries()) {
    const fee = FEES[i]!;
    const entry = (scheme: string | null, percent: string) => ({
      scheme,
      card_type: null,
      currency: 'USD',
      country: null,
      percent,
      fixed_fee: { amount: fee.fixed, currency: 'USD' },
    });
    await call(
      ctx,
      merchant,
      'PUT',
      `/payment-services/${id}/fee-schedule`,
      {
        entries: [entry(null, fee.percent), entry('amex', fee.amexPercent)],
      },
      200,
    );
  }
  const path = '/flows/card-transaction/actions/route-transaction/rules';
  await call(ctx, merchant, 'POST', path, ruleOf(strategy, services), 201);
  return { merchant, cardId };
}

/** Sets up the three accounts and measures them in interleaved slices; returns static first. */
export async function routingCost(ctx: RoutingCostContext): Promise<RoutingCostVariant[]> {
  const flowCtx: FlowBenchContext = { ...ctx, seconds: ctx.sliceSeconds };
  const suffix = Date.now().toString(36);
  const accounts = new Map<Strategy, { merchant: string; cardId: string }>();
  for (const strategy of STRATEGIES) accounts.set(strategy, await setUp(flowCtx, strategy, suffix));
  const load = (strategy: Strategy, seconds: number) => {
    const { merchant, cardId } = accounts.get(strategy)!;
    return ctx.autocannon({
      url: `${ctx.baseUrl}/transactions`,
      method: 'POST',
      connections: ctx.connections,
      duration: seconds,
      headers: {
        authorization: `Bearer ${ctx.token}`,
        'content-type': 'application/json',
        [MERCHANT_HEADER]: merchant,
      },
      body: JSON.stringify({ amount: 1000, currency: 'USD', payment_method: { method: 'id', id: cardId } }),
    });
  };
  const variants = new Map<Strategy, RoutingCostVariant>(
    STRATEGIES.map((s) => [
      s,
      { name: s, scenario: routingCostScenario(s), slices: [], results: [], postgresMs: [], idleMs: [] },
    ]),
  );
  // A server that has not run these paths yet compiles them during the first slices (BENCH_WARMUP).
  if (ctx.warmup > 0) for (const strategy of STRATEGIES) await load(strategy, ctx.warmup);
  for (let round = 0; round < ctx.rounds; round++) {
    // Static, success rate, least cost, then the other way round: each goes first and last as often.
    const order = round % 2 === 0 ? STRATEGIES : [...STRATEGIES].reverse();
    for (const strategy of order) {
      await load(strategy, 1);
      const before = cpuTicks(ctx.serverPid, ctx.postgres);
      const result = await load(strategy, ctx.sliceSeconds);
      const cpu = perRequest(before, cpuTicks(ctx.serverPid, ctx.postgres), result.requests.total);
      const slice: CostSlice = {
        serverMs: cpu.server,
        rate: result.requests.total / result.duration,
        failed: result.errors + result.non2xx,
      };
      const variant = variants.get(strategy)!;
      variant.slices.push(slice);
      variant.results.push(result);
      variant.postgresMs.push(cpu.postgres);
      variant.idleMs.push(cpu.idle);
      log(
        `smart routing cost: round ${round + 1} ${strategy}: ${Math.round(slice.rate)}/s, server ${cpu.server?.toFixed(3) ?? '–'} ms/authorization${slice.failed ? `, ${slice.failed} failed` : ''}`,
      );
    }
  }
  return STRATEGIES.map((s) => variants.get(s)!);
}

const medianOf = (values: Array<number | null>) => {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? median(known) : null;
};

/**
 * A variant as one row of bench/run.ts's table: requests and duration summed over its slices,
 * latencies and CPU per request the median of its slices.
 */
export function variantRow(variant: RoutingCostVariant, sliceSeconds: number) {
  const results = variant.results as LoadResult[];
  const sum = (pick: (r: LoadResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  const statusCodeStats: LoadResult['statusCodeStats'] = {};
  for (const r of results)
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {}))
      statusCodeStats[code] = { count: (statusCodeStats[code]?.count ?? 0) + count };
  const result: LoadResult = {
    requests: { ...results[0]!.requests, total: sum((r) => r.requests.total) },
    latency: {
      ...results[0]!.latency,
      p50: median(results.map((r) => r.latency.p50)),
      p99: median(results.map((r) => r.latency.p99)),
    },
    duration: sum((r) => r.duration),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non2xx: sum((r) => r.non2xx),
    statusCodeStats,
  };
  return {
    scenario: variant.scenario,
    result,
    note: `median of ${results.length} slices of ${sliceSeconds} s`,
    cpu: {
      server: medianOf(variant.slices.map((s) => s.serverMs)),
      postgres: medianOf(variant.postgresMs),
      idle: medianOf(variant.idleMs),
    },
    gcMs: null,
  };
}

/**
 * The group as bench/run.ts runs it: nothing when BENCH_ONLY matches none of its rows; else its
 * three rows (static first), the table of the extra cost with the aim's verdict, and whether it
 * started with a VACUUM (ANALYZE), as each scenario of the run does on a server without autovacuum.
 */
export async function routingCostGroup(group: RoutingCostGroupContext) {
  const { server, schema, only, label } = group;
  if (only && !STRATEGIES.some((s) => only.test(routingCostScenario(s)))) return null;
  const rounds = positive('BENCH_ROUNDS', 6);
  const sliceSeconds = positive('BENCH_SLICE_SECONDS', 5);
  log(`${label}: smart routing cost: ${rounds} rounds of ${sliceSeconds} s slices, ${group.connections} connections`);
  const vacuumed = (await schema?.vacuumIfNoAutovacuum()) ?? false;
  const ctx = {
    ...group,
    baseUrl: server.baseUrl,
    sliceSeconds,
    rounds,
    serverPid: server.child.pid,
    postgres: schema !== null,
  };
  const [baseline, ...variants] = await routingCost(ctx);
  const heading = `Smart routing's extra server CPU per authorization (the same stored-card authorization, ${rounds} interleaved rounds of ${sliceSeconds}-s slices; each strategy against the static slice of its round):`;
  return {
    rows: [baseline!, ...variants].map((v) => variantRow(v, sliceSeconds)),
    table: `${heading}\n\n${costTable(baseline!, variants, ROUTING_COST_AIM_MS)}`,
    vacuumed,
  };
}
