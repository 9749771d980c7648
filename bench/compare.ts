/**
 * The comparison of two runs of the benchmark (bench/run.ts with BENCH_COMPARE_WITH): the rows of
 * both matched by scenario name (an older checkout may lack some scenarios, and a row's note, such
 * as a token count, may differ), as a markdown table, then the scenarios only one run has.
 */
import { REFERENCE_SCENARIO } from './transactions.ts';

/** What the comparison reads of a row of bench/run.ts. */
export interface MeasuredRow {
  scenario: string;
  result: { requests: { total: number }; latency: { p99: number }; duration: number };
  cpu: { server: number | null; postgres: number | null };
}

const rate = (row: MeasuredRow) => row.result.requests.total / row.result.duration;
const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
const ms = (n: number | null) => (n === null ? '–' : n.toFixed(2));
const change = (before: string, after: string) => `${before} → ${after}`;

/** Requests/s as a multiple of the run's own reference row (each run has its own, measured right before its transaction rows). */
function timesReference(rows: MeasuredRow[]): (row: MeasuredRow) => string {
  const reference = rows.find((r) => r.scenario === REFERENCE_SCENARIO);
  return (row) => (reference ? (rate(row) / rate(reference)).toFixed(2) : '–');
}

/** The comparison table, `after` against `before`, in the order of `after`'s rows. */
export function compareTable(before: MeasuredRow[], after: MeasuredRow[]): string {
  const earlier = new Map(before.map((row) => [row.scenario, row]));
  const later = new Set(after.map((row) => row.scenario));
  const withReference = [...before, ...after].some((row) => row.scenario === REFERENCE_SCENARIO);
  const referenceBefore = timesReference(before);
  const referenceAfter = timesReference(after);
  const lines = [
    `| scenario | requests/s before → after | after / before |${withReference ? ' × reference before → after |' : ''} p99 ms before → after | server CPU ms/request before → after | PostgreSQL CPU ms/request before → after |`,
    `|---|---:|---:|${withReference ? '---:|' : ''}---:|---:|---:|`,
  ];
  for (const row of after) {
    const old = earlier.get(row.scenario);
    if (!old) continue;
    const ratio = rate(old) > 0 ? (rate(row) / rate(old)).toFixed(2) : '–';
    const reference = withReference ? ` ${change(referenceBefore(old), referenceAfter(row))} |` : '';
    lines.push(
      `| ${row.scenario} | ${change(String(Math.round(rate(old))), String(Math.round(rate(row))))} | ${ratio} |${reference} ${change(round(old.result.latency.p99), round(row.result.latency.p99))} | ${change(ms(old.cpu.server), ms(row.cpu.server))} | ${change(ms(old.cpu.postgres), ms(row.cpu.postgres))} |`,
    );
  }
  const onlyBefore = before.filter((row) => !later.has(row.scenario)).map((row) => row.scenario);
  const onlyAfter = after.filter((row) => !earlier.has(row.scenario)).map((row) => row.scenario);
  if (onlyBefore.length > 0) lines.push('', 'Only before:', ...onlyBefore.map((name) => `- ${name}`));
  if (onlyAfter.length > 0) lines.push('', 'Only after:', ...onlyAfter.map((name) => `- ${name}`));
  return lines.join('\n');
}
