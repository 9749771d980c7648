/**
 * Short windows of an evenly paced row, each with what the host and PostgreSQL were doing in it
 * (`npm run bench:windows`, bench/paced-windows.ts). Pure: the runner gives it the requests'
 * latencies, the server's GC pauses and the samples it took, and prints what this returns.
 */
import type { Pause } from './gc-summary.ts';
import { percentile } from './percentile.ts';

/**
 * A request: when it was due (epoch ms), its latency (ms, from when it was due), and when known its
 * time in the server (its `Server-Timing` `app`) and how late the generator wrote it (ms after due).
 */
export type Point = readonly [dueMs: number, latencyMs: number, serverMs?: number, lateMs?: number];

/** One look at the host and at the database's active backends. */
export interface Sample {
  /** Epoch ms. */
  at: number;
  /** The wait event of each active backend of the bench's database (`cpu` when it waits for none). */
  waits: string[];
  /** CPU time used so far, in clock ticks: the server's process, PostgreSQL's processes, the host's CPUs (busy, summed). */
  serverTicks: number;
  postgresTicks: number;
  hostBusyTicks: number;
}

export interface Window {
  /** ms after the start. */
  offsetMs: number;
  answered: number;
  p50: number;
  p99: number;
  /** p99 of the time in the server and of the lateness of the writes (NaN when unknown). */
  serverP99: number;
  lateP99: number;
  gc: Pause[];
  /** Mean number of active backends. */
  active: number;
  /** CPU used, in % of one CPU (the host's 200 is two CPUs busy), between the window's first and last samples; NaN with fewer than two. */
  serverCpu: number;
  postgresCpu: number;
  hostCpu: number;
  /** Wait events seen, most seen first. */
  waits: Array<[string, number]>;
}

/** `points`, `gc` and `samples` cut into windows of `windowMs` from `startMs` to `endMs`. */
export function windowsOf(
  points: readonly Point[],
  gc: readonly Pause[],
  samples: readonly Sample[],
  o: { startMs: number; endMs: number; windowMs: number; ticksPerSecond: number },
): Window[] {
  const out: Window[] = [];
  for (let from = o.startMs; from < o.endMs; from += o.windowMs) {
    const to = from + o.windowMs;
    const inRange = points.filter(([at]) => at >= from && at < to);
    const latencies = inRange.map(([, ms]) => ms);
    const known = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined);
    const inWindow = samples.filter((s) => s.at >= from && s.at < to);
    const waits = new Map<string, number>();
    for (const sample of inWindow) for (const wait of sample.waits) waits.set(wait, (waits.get(wait) ?? 0) + 1);
    const first = inWindow[0];
    const last = inWindow[inWindow.length - 1];
    const seconds = first && last && last.at > first.at ? (last.at - first.at) / 1000 : 0;
    const share = (ticks: (s: Sample) => number) =>
      seconds > 0 ? ((ticks(last!) - ticks(first!)) / o.ticksPerSecond / seconds) * 100 : NaN;
    out.push({
      offsetMs: from - o.startMs,
      answered: latencies.length,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      serverP99: percentile(known(inRange.map((p) => p[2])), 0.99),
      lateP99: percentile(known(inRange.map((p) => p[3])), 0.99),
      gc: gc.filter((p) => p.at >= from && p.at < to),
      active: inWindow.reduce((sum, s) => sum + s.waits.length, 0) / (inWindow.length || 1),
      serverCpu: share((s) => s.serverTicks),
      postgresCpu: share((s) => s.postgresTicks),
      hostCpu: share((s) => s.hostBusyTicks),
      waits: [...waits].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    });
  }
  return out;
}

/** For each wait event: the mean p99 of the windows where it was seen, and of the others. */
export function waitsAgainstP99(
  windows: readonly Window[],
): Array<{ wait: string; with: number; withMean: number; withoutMean: number }> {
  const names = new Set(windows.flatMap((w) => w.waits.map(([name]) => name)));
  const mean = (list: readonly Window[]) => (list.length ? list.reduce((sum, w) => sum + w.p99, 0) / list.length : NaN);
  const answered = windows.filter((w) => w.answered > 0);
  return [...names]
    .map((wait) => {
      const seen = answered.filter((w) => w.waits.some(([name]) => name === wait));
      return {
        wait,
        with: seen.length,
        withMean: mean(seen),
        withoutMean: mean(answered.filter((w) => !seen.includes(w))),
      };
    })
    .sort((a, b) => b.with - a.with || a.wait.localeCompare(b.wait));
}

export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** One line per window; `*` marks a window whose p99 is over `aimMs`. */
export function formatWindow(w: Window, aimMs: number): string {
  const gc = w.gc.map((p) => `${p.kind[0]}${p.ms.toFixed(1)}`).join(',') || '-';
  const waits = w.waits
    .slice(0, 4)
    .map(([name, n]) => `${name}:${n}`)
    .join(' ');
  return [
    `${(w.offsetMs / 1000).toFixed(2).padStart(6)} s`,
    `n ${String(w.answered).padStart(4)}`,
    `p50 ${fixed(w.p50).padStart(5)}`,
    `p99 ${fixed(w.p99).padStart(5)}${w.p99 > aimMs ? ' *' : '  '}`,
    `in server ${fixed(w.serverP99).padStart(4)}`,
    `late ${fixed(w.lateP99).padStart(3)}`,
    `gc ${gc.padEnd(16)}`,
    `active ${w.active.toFixed(1)}`,
    `server ${fixed(w.serverCpu).padStart(3)} %`,
    `postgres ${fixed(w.postgresCpu).padStart(3)} %`,
    `host ${fixed(w.hostCpu).padStart(3)} %`,
    `waits ${waits}`,
  ].join('  ');
}
