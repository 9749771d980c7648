/**
 * Summary of a GC pause log written by bench/gc-pauses.mjs:
 * `node --import tsx bench/gc-summary.ts FILE… [--last=SECONDS]`. Per kind of pause: how many, their
 * sum, mean, median, 90th percentile and longest, and how many lasted more than 10 ms. `--last=20`
 * keeps the pauses of the log's last 20 s (the benchmark's last scenarios, without the server's start
 * and the seeding). Every in-flight request waits out a pause, so the lengths bear on the latency
 * percentiles, where the total (the benchmark's "server GC pauses" column) bears on throughput.
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { percentile } from './percentile.ts';

export interface Pause {
  at: number;
  kind: string;
  ms: number;
}

export interface KindSummary {
  kind: string;
  count: number;
  sumMs: number;
  meanMs: number;
  medianMs: number;
  p90Ms: number;
  maxMs: number;
  over10Ms: number;
}

/** The log's lines; a line that is not `<epoch ms> <kind> <ms>` is an error naming it. */
export function parsePauses(text: string): Pause[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const match = /^(\d+) (\w+) (\d+(?:\.\d+)?)$/.exec(line.trim());
      if (!match) throw new Error(`line ${i + 1} is not "<epoch ms> <kind> <pause ms>": ${line}`);
      return { at: Number(match[1]), kind: match[2]!, ms: Number(match[3]) };
    });
}

/** Per kind (in order of first appearance), of the pauses that started within `lastMs` of the log's last one (all without it). */
export function summarize(pauses: Pause[], lastMs?: number): KindSummary[] {
  if (pauses.length === 0) return [];
  const end = Math.max(...pauses.map((p) => p.at));
  const kept = lastMs === undefined ? pauses : pauses.filter((p) => p.at >= end - lastMs);
  const byKind = new Map<string, number[]>();
  for (const p of kept) {
    const list = byKind.get(p.kind);
    if (list) list.push(p.ms);
    else byKind.set(p.kind, [p.ms]);
  }
  return [...byKind].map(([kind, values]) => {
    const sorted = values.slice().sort((a, b) => a - b);
    const sumMs = sorted.reduce((sum, v) => sum + v, 0);
    return {
      kind,
      count: sorted.length,
      sumMs,
      meanMs: sumMs / sorted.length,
      medianMs: percentile(sorted, 0.5),
      p90Ms: percentile(sorted, 0.9),
      maxMs: sorted[sorted.length - 1]!,
      over10Ms: sorted.filter((v) => v > 10).length,
    };
  });
}

function main(args: string[]): void {
  const last = args.find((a) => a.startsWith('--last='));
  const lastMs = last ? Number(last.slice('--last='.length)) * 1000 : undefined;
  const files = args.filter((a) => !a.startsWith('--'));
  if (files.length === 0 || (lastMs !== undefined && !(lastMs > 0))) {
    process.stderr.write('usage: node --import tsx bench/gc-summary.ts FILE… [--last=SECONDS]\n');
    process.exit(2);
  }
  for (const file of files) {
    console.log(`${file}${lastMs === undefined ? '' : ` (the last ${lastMs / 1000} s)`}`);
    for (const s of summarize(parsePauses(fs.readFileSync(file, 'utf8')), lastMs)) {
      const f = (v: number) => v.toFixed(1);
      console.log(
        `  ${s.kind.padEnd(11)} ${String(s.count).padStart(5)} pauses, ${f(s.sumMs)} ms in all; mean ${f(s.meanMs)}, median ${f(s.medianMs)}, p90 ${f(s.p90Ms)}, longest ${f(s.maxMs)} ms; ${s.over10Ms} over 10 ms`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
