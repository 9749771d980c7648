/**
 * A preload that writes every garbage-collection pause of the process to a file, one line each:
 * `<epoch ms> <kind> <pause ms>` (kind: minor, major, incremental, weakcb). For the server under
 * the benchmark: `BENCH_SERVER_NODE_ARGS="--import $PWD/bench/gc-pauses.mjs"` (the file is
 * `gc-<pid>.log` in BENCH_GC_LOG_DIR, default the system's temporary directory), then
 * `node --import tsx bench/gc-summary.ts FILE [--last=SECONDS]`. Plain JavaScript, so node loads it
 * before tsx is registered. The pauses are the ones prom-client sums in `/metrics`
 * (`nodejs_gc_duration_seconds`), here one by one: their lengths, not only their total.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

const file = path.join(process.env.BENCH_GC_LOG_DIR || os.tmpdir(), `gc-${process.pid}.log`);
const fd = fs.openSync(file, 'a');
process.stderr.write(`gc-pauses: writing this process's GC pauses to ${file}\n`);

new PerformanceObserver((list) => {
  let lines = '';
  for (const entry of list.getEntries()) {
    lines += `${Math.round(performance.timeOrigin + entry.startTime)} ${KINDS[entry.detail?.kind] ?? 'other'} ${entry.duration.toFixed(3)}\n`;
  }
  fs.writeSync(fd, lines);
}).observe({ entryTypes: ['gc'] });
