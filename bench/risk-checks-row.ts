/**
 * The risk checks' row of `npm run bench` and its table (bench/risk-checks.ts measures,
 * bench/risk-checks-summary.ts judges). Environment:
 *   BENCH_RISK_SECONDS  seconds measured (PostgreSQL: BENCH_SECONDS, at least 20; PGlite: 60, a
 *                       whole minute, as its counters settle each minute once it is over),
 *                       after a warm-up of half as long
 *   BENCH_RISK_RATE     card authorizations a second, paced in real time (default 200)
 *   BENCH_RISK_ENTRIES  the account's blocklist entries (default 1,000)
 */
import { positive } from './env.ts';
import type { LoadResult } from './paced.ts';
import type { CpuFigures } from './cpu.ts';
import { measureRiskChecks } from './risk-checks.ts';
import { riskChecksTable } from './risk-checks-summary.ts';

type Run = (
  scenario: string,
  fn: () => Promise<{ result: LoadResult & { cpu?: CpuFigures }; note?: string }>,
) => Promise<void>;

export const RISK_CHECKS_SCENARIO =
  'Risk checks per card authorization: blocklist + velocity (3 rules) + card-testing guard, in process, no HTTP (server column: their CPU)';

/** Runs the row (unless BENCH_ONLY leaves it out); the table printed under the run's, or null. */
export async function riskChecksGroup(
  ctx: { databaseUrl: string | null; serverDataDir: string; seconds: number },
  run: Run,
): Promise<string | null> {
  // PGlite settles each minute once it is over (decision 0146): a measured minute holds exactly one.
  const seconds = positive('BENCH_RISK_SECONDS', ctx.databaseUrl ? Math.max(ctx.seconds, 20) : 60);
  const options = {
    databaseUrl: ctx.databaseUrl,
    serverDataDir: ctx.serverDataDir,
    seconds,
    warmupSeconds: Math.max(1, Math.round(seconds / 2)),
    perSecond: positive('BENCH_RISK_RATE', 200),
    entries: positive('BENCH_RISK_ENTRIES', 1_000),
  };
  let table: string | null = null;
  await run(RISK_CHECKS_SCENARIO, async () => {
    const measured = await measureRiskChecks(options);
    table = riskChecksTable(measured.figures);
    const at = (q: number) =>
      measured.latencies[Math.min(measured.latencies.length - 1, Math.floor(q * measured.latencies.length))] ?? 0;
    const total = measured.latencies.length;
    const rate = total / measured.duration;
    const requests = { total, average: rate, p50: rate, p99: rate };
    const mean = measured.latencies.reduce((sum, ms) => sum + ms, 0) / Math.max(total, 1);
    const latency = { total, average: mean, p50: at(0.5), p99: at(0.99) };
    return {
      result: {
        requests,
        latency,
        duration: measured.duration,
        errors: 0,
        timeouts: 0,
        non2xx: 0,
        statusCodeStats: {},
        cpu: measured.cpu,
      },
      note: `${options.entries.toLocaleString('en-US')} entries, ${options.perSecond} a second`,
    };
  });
  return table;
}
