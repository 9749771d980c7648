/**
 * How long `/docs` takes to show its operations: `npm run bench:docs` (docs/api-reference.md).
 *
 * Starts this checkout's server (and, with `BENCH_COMPARE_WITH`, the other checkout's, "before")
 * on PGlite in fresh data directories, then loads `/docs/` in Debian's chromium on a 390 px phone viewport, in turn, the order reversed
 * every other round, so that a drift of the shared host falls on all alike. Each load is a fresh
 * browser context (nothing cached), timed from navigation start to five operations on screen
 * (`a.operation` on our pages, `a.endpoint` in the Scalar page of older checkouts), as the browser test does, with the CPU
 * time the browser's processes spent on it. The servers' one-time work (an older checkout's renderer
 * gzipped, the document serialized, the index written) is done before the first load.
 *
 * Environment:
 *   BENCH_COMPARE_WITH   another checkout ("before"): a directory with bin/svc.mjs and node_modules
 *   BENCH_RUNS           loads per server (default 5)
 *   CHROMIUM_PATH        default /usr/bin/chromium
 *
 * Prints each server's document size, each load (stderr), the median per page and, with a "before",
 * the median of the pairwise ratios of each page to it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT, startServer, type RunningServer } from '../test/helpers/spawn-server.ts';
import { positive } from './env.ts';
import { percentile } from './percentile.ts';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Target {
  name: string;
  path: string;
  server: RunningServer;
  dataDir: string;
  times: number[];
  cpu: number[];
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ticks used so far by each process below `root` (the browser's and its renderers). */
function ticksBelow(root: number): Map<number, number> {
  const stats = fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const fields = fs
          .readFileSync(`/proc/${pid}/stat`, 'utf8')
          .replace(/^.*\) /, '')
          .split(' ');
        return [{ pid: Number(pid), parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }];
      } catch {
        return [];
      }
    });
  const below = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) {
      if (below.has(s.pid) || !below.has(s.parent)) continue;
      below.add(s.pid);
      grew = true;
    }
  }
  return new Map(stats.filter((s) => s.pid !== root && below.has(s.pid)).map((s) => [s.pid, s.ticks]));
}

/**
 * CPU time (ms) the browser's processes spent since `start`, a figure the host's load does not
 * stretch. Read before the page's context closes: a renderer that exits takes its ticks with it.
 */
function cpuSince(start: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, now] of ticksBelow(process.pid)) ticks += now - (start.get(pid) ?? 0);
  return ticks * TICK_MS;
}

async function start(name: string, root: string): Promise<Omit<Target, 'path'>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-docs-'));
  const server = await startServer({ DATA_DIR: dataDir }, 180_000, { svc: path.join(root, 'bin', 'svc.mjs') });
  const base = server.baseUrl.replace('localhost', '127.0.0.1');
  for (const asset of ['/docs/', '/docs/js/scalar.js'])
    await fetch(`${base}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
  const plain = await (await fetch(`${base}/openapi.json`)).arrayBuffer();
  // Node's fetch unzips: the size on the wire is the content-length of the gzipped answer.
  const zipped = await fetch(`${base}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
  const wire =
    zipped.headers.get('content-encoding') === 'gzip'
      ? `${(Number(zipped.headers.get('content-length')) / 1024).toFixed(0)} kB gzipped`
      : 'not compressed';
  console.log(`${name}: /openapi.json ${(plain.byteLength / 1024).toFixed(0)} kB, ${wire}`);
  return { name, server, dataDir, times: [], cpu: [] };
}

async function load(browser: Browser, target: Target): Promise<{ ms: number; cpu: number }> {
  const start = ticksBelow(process.pid);
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const page = await context.newPage();
  await page.goto(`${target.server.baseUrl.replace('localhost', '127.0.0.1')}${target.path}`, { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelectorAll('a.operation, a.endpoint').length >= 5, undefined, {
    polling: 20,
    timeout: 120_000,
  });
  const ms = await page.evaluate(() => performance.now());
  const cpu = cpuSince(start);
  await context.close();
  return { ms, cpu };
}

async function main(): Promise<void> {
  const runs = positive('BENCH_RUNS', 5);
  const other = process.env.BENCH_COMPARE_WITH;
  const before = other ? await start('before', path.resolve(other)) : null;
  const after = await start(other ? 'after' : 'this', ROOT);
  const targets: Target[] = [...(before ? [{ ...before, path: '/docs/' }] : []), { ...after, path: '/docs/' }];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ARGS,
  });
  try {
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const { ms, cpu } = await load(browser, target);
        target.times.push(ms);
        target.cpu.push(cpu);
        console.error(
          `run ${run + 1} ${target.name}: ${Math.round(ms)} ms, browser CPU ${cpu} ms (load ${os.loadavg()[0]!.toFixed(1)})`,
        );
      }
    }
  } finally {
    await browser.close();
    for (const server of [before, after]) {
      if (!server) continue;
      await server.server.stop('SIGTERM');
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
  }
  for (const target of targets) {
    console.log(
      `${target.name}: on screen after median ${Math.round(percentile(target.times, 0.5))} ms of ${runs} (${target.times.map(Math.round).join(', ')})`,
    );
    console.log(
      `${target.name}: browser CPU median ${Math.round(percentile(target.cpu, 0.5))} ms (${target.cpu.join(', ')})`,
    );
  }
  for (const target of before ? targets.slice(1) : []) {
    for (const [label, of] of [
      ['on screen', (t: Target) => t.times],
      ['browser CPU', (t: Target) => t.cpu],
    ] as const) {
      const ratios = of(target).map((value, i) => value / of(targets[0]!)[i]!);
      console.log(
        `${label} ${target.name} ÷ before: median ${percentile(ratios, 0.5).toFixed(2)} (${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)})`,
      );
    }
  }
  console.log(
    `host: ${os.availableParallelism()} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
}

await main();
