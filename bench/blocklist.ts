/**
 * The CPU a blocklist check costs an authorization (decision 0135, docs/risk.md "Blocklists"):
 * BENCH_BLOCKLIST_ENTRIES entries (default 100,000) of every value type for one merchant account,
 * compiled once, then BENCH_BLOCKLIST_CHECKS checks (default 200,000) through the same path a
 * payment takes (the facts of the transaction, the account's matcher from a serving read cache,
 * the match), nine misses in ten. Printed: build time and heap growth, CPU per check (user +
 * system) over the checks. `npm run bench:blocklist`.
 */
import { ReadCache } from '../src/db/read-cache.ts';
import type { Deps } from '../src/context.ts';
import { BlocklistMatcher } from '../src/modules/blocklist-entries/blocklist-matcher.ts';
import { checkBlocklist } from '../src/modules/blocklist-entries/blocklist-check.service.ts';
import { blocklistFacts } from '../src/modules/transactions/create/blocklist-stop.ts';
import { benchBlocklistEntries, benchBlocklistPayment } from './blocklist-entries.ts';

const ENTRIES = Number(process.env.BENCH_BLOCKLIST_ENTRIES ?? 100_000);
const CHECKS = Number(process.env.BENCH_BLOCKLIST_CHECKS ?? 200_000);
const entries = benchBlocklistEntries(ENTRIES);

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
gc();
const heapBefore = process.memoryUsage().heapUsed;
const built = performance.now();
const matcher = new BlocklistMatcher(entries, Date.now());
const buildMs = performance.now() - built;
gc();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

const cache = new ReadCache<BlocklistMatcher>({ serving: true });
const deps = { readCaches: { blocklists: cache } } as unknown as Deps;
const db = null as never;

const inputs = Array.from({ length: 1_000 }, (_, i) => benchBlocklistPayment(i));

async function run(n: number): Promise<number> {
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const p = inputs[i % inputs.length]!;
    const facts = blocklistFacts(p.instrument, 'US', p.buyer, `guest-${i}`, p.ip);
    if (await checkBlocklist(db, deps, 'm1', facts)) hits++;
  }
  return hits;
}

await cache.get('m1', async () => matcher);
await run(20_000);
const cpu = process.cpuUsage();
const started = performance.now();
const hits = await run(CHECKS);
const used = process.cpuUsage(cpu);
const wall = performance.now() - started;
console.error(
  `${matcher.size} entries: built in ${buildMs.toFixed(0)} ms, heap +${heapMb.toFixed(1)} MB; ` +
    `${CHECKS} checks (${hits} hits): ${(((used.user + used.system) / CHECKS) * 1).toFixed(2)} µs CPU per check, ` +
    `${((wall * 1000) / CHECKS).toFixed(2)} µs wall`,
);
