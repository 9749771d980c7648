/**
 * `npm run bench:routing`: the simulated market of bench/routing-market.ts replayed through the
 * real engine, in process (the app on an in-memory PGlite, `POST /transactions` by Fastify inject),
 * once per strategy: static rules, success-rate routing, least-cost routing, and an oracle that
 * knows the true rates and the outage (it names the best service in each request). Time is
 * simulated: the routing statistics and the circuit breakers run on the simulation's clock, their
 * batches written and synced every simulated second. Prints the authorization rate, the fees and
 * how long each strategy took to move its first attempts off the failed provider and back.
 *
 * Before the measured transactions, every run gets the same history: `ROUTING_BENCH_WARMUP`
 * (default 600) transactions split evenly over the three services by naming one in each request
 * (as a merchant's earlier traffic would have been), which the routing statistics count like any
 * other; 0 starts cold. `ROUTING_BENCH_TRANSACTIONS` (default 2400, at 4 a simulated second) and
 * `ROUTING_BENCH_SEED`. Success-rate routing's draws are seeded by the transactions' ids (random),
 * so it runs `ROUTING_BENCH_SUCCESS_RATE_RUNS` times (default 3), each printed, the aims judged on
 * the worst.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/deps.ts';
import { RoutingStats } from '../src/modules/routing-stats/stats-store.ts';
import { createMerchantAccount } from '../test/helpers/factories.ts';
import { createTestKeyPair } from '../test/helpers/tokens.ts';
import {
  CARD_OF,
  definitionId,
  FEES,
  feeOf,
  inOutage,
  Market,
  marketRegistry,
  marketTransactions,
  OUTAGE,
  PROVIDERS,
  TRUE_RATES,
  type MarketTransaction,
  type Provider,
} from './routing-market.ts';

const COUNT = Number(process.env.ROUTING_BENCH_TRANSACTIONS ?? 2400);
const SEED = process.env.ROUTING_BENCH_SEED ?? 'routing-market-1';
const WARMUP = Number(process.env.ROUTING_BENCH_WARMUP ?? 600);
const PER_SECOND = 4;
const BIN_SECONDS = 5;
/** Success-rate routing draws (seeded by transaction ids, which are random): it runs this many times. */
const REPEATS = Math.max(1, Number(process.env.ROUTING_BENCH_SUCCESS_RATE_RUNS ?? 3));
const STRATEGIES = ['static', 'success_rate', 'least_cost', 'oracle'] as const;
type Strategy = (typeof STRATEGIES)[number];
const RUNS: Strategy[] = [
  'static',
  ...Array.from({ length: REPEATS }, () => 'success_rate' as const),
  'least_cost',
  'oracle',
];

const log = (message: string) => process.stderr.write(`[bench:routing] ${message}\n`);

let simulatedMs = Date.UTC(2030, 0, 1);
const clock = () => simulatedMs;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-routing-bench-'));
const market = new Market();
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
const runtime = await createRuntime(config, {
  inMemory: true,
  connectors: marketRegistry(market),
  breakerClock: clock,
});
const deps = runtime.deps;
// The breakers sync when the simulation says so (every simulated second): `close` stops their
// wall-clock timer, and `sync` still works.
await deps.breakers.close();
// The statistics on the simulated clock, written every simulated second (no wall-clock timer).
await deps.routingStats.close();
const stats = new RoutingStats(deps.db, { now: clock });
deps.routingStats = stats;
const app: FastifyInstance = await buildApp(deps, {
  logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
});
const keys = await createTestKeyPair(deps);
const token = await keys.token();

async function call(merchant: string, method: 'POST' | 'PUT', url: string, payload: object) {
  const res = await app.inject({
    method,
    url,
    payload,
    headers: { authorization: `Bearer ${token}`, 'x-svc-merchant-account-id': merchant },
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

async function setUp(strategy: Strategy, run: number) {
  const merchant = await createMerchantAccount(deps, { display_name: `routing bench ${strategy} ${run}` });
  const ids = {} as Record<Provider, string>;
  for (const provider of PROVIDERS) {
    const service = await call(merchant, 'POST', '/payment-services', {
      display_name: provider,
      payment_service_definition_id: definitionId(provider),
      fields: [{ key: 'merchant_id', value: provider }],
      accepted_currencies: ['USD'],
      accepted_countries: ['US', 'GB', 'DE'],
    });
    ids[provider] = service.id;
    const f = FEES[provider];
    const entry = (scheme: string | null, percent: string) => ({
      scheme,
      card_type: null,
      currency: 'USD',
      country: null,
      percent,
      fixed_fee: { amount: f.fixed, currency: 'USD' },
    });
    await call(merchant, 'PUT', `/payment-services/${service.id}/fee-schedule`, {
      entries: [entry(null, f.percent), entry('amex', f.amexPercent)],
    });
  }
  const rule = (conditions: object[], order: Provider[], extra: object = {}) =>
    call(merchant, 'POST', '/flows/card-transaction/actions/route-transaction/rules', {
      conditions,
      // A soft decline is final (no failover to a second draw), as for the oracle's single attempt:
      // the strategies are compared on where they send each transaction first.
      outcome: { payment_service_ids: order.map((p) => ids[p]), retry_on_declines: [], ...extra },
    });
  const learning = { min_samples: 20, window_minutes: 10 };
  if (strategy === 'static') {
    // What a merchant writes by hand: alpha for the US, beta for Europe, the others to fail over to.
    await rule([{ field: 'country', operator: 'equals', value: 'US' }], ['alpha', 'beta', 'gamma']);
    await rule([], ['beta', 'alpha', 'gamma']);
  } else if (strategy === 'success_rate')
    await rule([], ['alpha', 'beta', 'gamma'], { strategy: 'success_rate', exploration_percent: 10, ...learning });
  else if (strategy === 'least_cost')
    await rule([], ['alpha', 'beta', 'gamma'], { strategy: 'least_cost', cost_margin_percent: 0.5, ...learning });
  return { merchant, ids };
}

/** The oracle's choice: the highest true rate among the providers that answer now (ties: the cheaper). */
function oracleOf(txn: MarketTransaction): Provider {
  let best: Provider | null = null;
  for (const p of PROVIDERS) {
    if (inOutage(p, txn.at)) continue;
    const rate = TRUE_RATES[p][txn.scheme][txn.country];
    if (best === null) best = p;
    else {
      const bestRate = TRUE_RATES[best][txn.scheme][txn.country];
      if (rate > bestRate || (rate === bestRate && feeOf(p, txn.scheme, 1000) < feeOf(best, txn.scheme, 1000)))
        best = p;
    }
  }
  return best!;
}

interface Result {
  strategy: Strategy;
  /** The run's label: the strategy, numbered when it runs more than once. */
  label: string;
  authorized: number;
  /** Of the transactions the card did not decline. */
  eligible: number;
  authorizedEligible: number;
  feesCents: number;
  attempts: number;
  /** Per transaction: the provider of its first attempt. */
  first: Provider[];
  wallSeconds: number;
}

async function run(
  strategy: Strategy,
  label: string,
  txns: MarketTransaction[],
  history: MarketTransaction[],
  startMs: number,
): Promise<Result> {
  const { merchant, ids } = await setUp(strategy, startMs);
  const byId = new Map(PROVIDERS.map((p) => [ids[p], p]));
  const result: Result = {
    strategy,
    label,
    authorized: 0,
    eligible: 0,
    authorizedEligible: 0,
    feesCents: 0,
    attempts: 0,
    first: [],
    wallSeconds: 0,
  };
  const started = performance.now();
  let second = Number.NEGATIVE_INFINITY;
  for (const txn of [...history, ...txns]) {
    const measured = txn.at >= 0;
    simulatedMs = startMs + Math.round(txn.at * 1000);
    const now = Math.floor(txn.at);
    if (now !== second) {
      second = now;
      await stats.flush();
      await deps.breakers.sync();
    }
    market.current = txn;
    market.calls = [];
    const body: Record<string, unknown> = {
      amount: txn.amount,
      currency: 'USD',
      country: txn.country,
      external_identifier: `${label}-${txn.index}`,
      payment_method: { method: 'card', expiration_date: '12/40', ...CARD_OF[txn.scheme] },
    };
    if (!measured) body.payment_service_id = ids[PROVIDERS[txn.index % PROVIDERS.length]!];
    else if (strategy === 'oracle') body.payment_service_id = ids[oracleOf(txn)];
    const res = await app.inject({
      method: 'POST',
      url: '/transactions',
      payload: body,
      headers: { authorization: `Bearer ${token}`, 'x-svc-merchant-account-id': merchant },
    });
    if (res.statusCode !== 201) throw new Error(`POST /transactions: ${res.statusCode} ${res.body}`);
    const answer = res.json() as { status: string; payment_service: { id: string } | null };
    const firstCall = market.calls[0];
    if (!firstCall) throw new Error(`transaction ${txn.index} reached no provider: ${res.body}`);
    if (!measured) continue;
    result.first.push(firstCall);
    result.attempts += market.calls.length;
    const ok = answer.status === 'authorization_succeeded' || answer.status === 'capture_succeeded';
    if (!txn.cardDeclines) result.eligible += 1;
    if (ok) {
      result.authorized += 1;
      if (!txn.cardDeclines) result.authorizedEligible += 1;
      const provider = byId.get(answer.payment_service?.id ?? '');
      if (!provider) throw new Error(`authorized at an unknown service: ${res.body}`);
      result.feesCents += feeOf(provider, txn.scheme, txn.amount);
    }
  }
  market.current = null;
  await stats.flush();
  await deps.breakers.sync();
  result.wallSeconds = (performance.now() - started) / 1000;
  return result;
}

/** The failed provider's share of first attempts in each BIN_SECONDS bin. */
function shares(result: Result, txns: MarketTransaction[]): number[] {
  const bins: Array<{ n: number; failed: number }> = [];
  for (let i = 0; i < txns.length; i++) {
    const b = Math.floor(txns[i]!.at / BIN_SECONDS);
    bins[b] ??= { n: 0, failed: 0 };
    bins[b].n += 1;
    if (result.first[i] === OUTAGE.provider) bins[b].failed += 1;
  }
  return bins.map((b) => (b.n ? b.failed / b.n : 0));
}

/**
 * Seconds from the outage's start to the end of the first bin where the failed provider had at
 * most 10 % of first attempts; and from its recovery to the end of the first bin where it had at
 * least half its steady share (its share of the run's last 100 simulated seconds, what the
 * strategy gives it once recovered). Null when never (or no steady share).
 */
function routeAround(result: Result, txns: MarketTransaction[]) {
  const s = shares(result, txns);
  const from = OUTAGE.from / BIN_SECONDS;
  const to = OUTAGE.to / BIN_SECONDS;
  const before = s.slice(from - 60 / BIN_SECONDS, from);
  const share = before.reduce((a, b) => a + b, 0) / before.length;
  const last = s.slice(s.length - 100 / BIN_SECONDS);
  const steady = last.reduce((a, b) => a + b, 0) / last.length;
  let off: number | null = null;
  for (let b = from; b < to; b++)
    if (s[b]! <= 0.1) {
      off = (b + 1) * BIN_SECONDS - OUTAGE.from;
      break;
    }
  let back: number | null = null;
  if (steady > 0)
    for (let b = to; b < s.length; b++)
      if (s[b]! >= steady / 2) {
        back = (b + 1) * BIN_SECONDS - OUTAGE.to;
        break;
      }
  const during = s.slice(from, to);
  return { share, steady, off, back, duringShare: during.reduce((a, b) => a + b, 0) / during.length };
}

const txns = marketTransactions(SEED, COUNT, PER_SECOND);
const history = marketTransactions(`${SEED}-history`, WARMUP, PER_SECOND, -WARMUP / PER_SECOND);
log(
  `${COUNT} transactions at ${PER_SECOND}/s (${COUNT / PER_SECOND} simulated s) after ${WARMUP} of history, seed ${SEED}; ${OUTAGE.provider} out ${OUTAGE.from}-${OUTAGE.to} s`,
);
const results: Result[] = [];
let successRateRun = 0;
for (const [k, strategy] of RUNS.entries()) {
  const label = strategy === 'success_rate' && REPEATS > 1 ? `success_rate #${++successRateRun}` : strategy;
  const r = await run(strategy, label, txns, history, Date.UTC(2030, 0, 1 + 2 * k));
  log(`${label}: ${r.wallSeconds.toFixed(1)} s of wall time`);
  results.push(r);
}

const pct = (a: number, b: number) => (100 * a) / b;
const staticResult = results[0]!;
const lines = [
  `Simulated market: ${COUNT} card authorizations at ${PER_SECOND}/s (${COUNT / PER_SECOND} simulated s) after ${WARMUP} of history split evenly over the services, seed ${SEED}, 3 providers; ${OUTAGE.provider} answers service_error from ${OUTAGE.from} s to ${OUTAGE.to} s.`,
  '',
  '| Strategy | Authorization rate | Rate without card declines | Fees (USD) | vs static | Attempts | Failed provider first: before / during / after | Moved off after | Back after |',
  '|---|---|---|---|---|---|---|---|---|',
];
for (const r of results) {
  const ra = routeAround(r, txns);
  const fees = r.feesCents / 100;
  lines.push(
    `| ${r.label} | ${pct(r.authorized, COUNT).toFixed(2)} % | ${pct(r.authorizedEligible, r.eligible).toFixed(2)} % | ${fees.toFixed(2)} | ${(
      pct(fees - staticResult.feesCents / 100, staticResult.feesCents / 100)
    ).toFixed(
      2,
    )} % | ${r.attempts} | ${(100 * ra.share).toFixed(0)} % / ${(100 * ra.duringShare).toFixed(1)} % / ${(100 * ra.steady).toFixed(0)} % | ${
      ra.off === null ? 'never' : `${ra.off} s`
    } | ${ra.back === null ? (ra.steady > 0 ? 'never' : 'n/a') : `${ra.back} s`} |`,
  );
}
const only = (strategy: Strategy) => results.filter((r) => r.strategy === strategy);
const rate = (r: Result) => pct(r.authorized, COUNT);
const oracle = only('oracle')[0]!;
const leastCost = only('least_cost')[0]!;
const learning = only('success_rate').map((r) => ({ r, ra: routeAround(r, txns), behind: rate(oracle) - rate(r) }));
// The aims are judged on the worst of the success-rate runs.
const worstBehind = Math.max(...learning.map((l) => l.behind));
const offs = learning.map((l) => l.ra.off);
const backs = learning.map((l) => l.ra.back);
const worst = (xs: Array<number | null>) => (xs.some((x) => x === null) ? null : Math.max(...(xs as number[])));
const off = worst(offs);
const back = worst(backs);
const list = (xs: Array<number | null>) => xs.map((x) => (x === null ? 'never' : `${x} s`)).join(', ');
lines.push(
  '',
  `Aims (success-rate routing: the worst of its ${learning.length} run${learning.length > 1 ? 's' : ''}):`,
  `  within 1 point of the oracle: ${learning.map((l) => l.behind.toFixed(2)).join(', ')} points behind (${worstBehind <= 1 ? 'met' : 'NOT met'});`,
  `  moved off ${OUTAGE.provider} after ${list(offs)} (aim 30 s: ${off !== null && off <= 30 ? 'met' : 'NOT met'}), back after ${list(backs)} (aim 60 s: ${back !== null && back <= 60 ? 'met' : 'NOT met'});`,
  `  least-cost fees ${pct(leastCost.feesCents - staticResult.feesCents, staticResult.feesCents).toFixed(2)} % vs static, authorization rate ${(rate(leastCost) - rate(staticResult)).toFixed(2)} points (aim: lower fees, at most 0.5 point lost: ${leastCost.feesCents < staticResult.feesCents && rate(staticResult) - rate(leastCost) <= 0.5 ? 'met' : 'NOT met'}).`,
);
process.stdout.write(`${lines.join('\n')}\n`);

await app.close();
await runtime.close();
fs.rmSync(dataDir, { recursive: true, force: true });
