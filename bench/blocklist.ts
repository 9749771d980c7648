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
import { BlocklistMatcher, type LoadedEntry } from '../src/modules/blocklist-entries/blocklist-matcher.ts';
import { checkBlocklist } from '../src/modules/blocklist-entries/blocklist-check.service.ts';
import { normalizeBlocklistValue, type BlocklistValueType } from '../src/modules/blocklist-entries/blocklist-values.ts';
import { blocklistFacts } from '../src/modules/transactions/create/blocklist-stop.ts';
import type { ResolvedInstrument } from '../src/modules/transactions/create/resolved-instrument.ts';

const ENTRIES = Number(process.env.BENCH_BLOCKLIST_ENTRIES ?? 100_000);
const CHECKS = Number(process.env.BENCH_BLOCKLIST_CHECKS ?? 200_000);
const COUNTRIES = ['RU', 'KP', 'IR', 'SY', 'CU', 'NG', 'VE', 'BY'];

function sampleValue(type: BlocklistValueType, i: number): string {
  switch (type) {
    case 'card_fingerprint':
      return `fp${String(i).padStart(41, '0')}`;
    case 'bin':
      return String(40_000_000 + i * 37).slice(0, 6 + (i % 3));
    case 'bin_range': {
      const start = 50_000_000 + i * 500;
      return `${start}-${start + 99}`;
    }
    case 'email_address':
      return `user${i}@example.com`;
    case 'ip_address':
      return i % 2
        ? `10.${(i >> 8) & 255}.${i & 255}.0/${24 + (i % 9)}`
        : `2001:db8:${(i % 65536).toString(16)}::/${48 + (i % 17)}`;
    case 'country':
      return COUNTRIES[i % COUNTRIES.length]!;
    case 'buyer_external_identifier':
      return `customer-${i}`;
  }
}

const TYPES: BlocklistValueType[] = [
  'card_fingerprint',
  'bin',
  'bin_range',
  'email_address',
  'ip_address',
  'country',
  'buyer_external_identifier',
];
const entries: LoadedEntry[] = [];
for (let i = 0; i < ENTRIES; i++) {
  const type = TYPES[i % TYPES.length]!;
  const normalized = normalizeBlocklistValue(type, sampleValue(type, i));
  if (normalized.ok) entries.push({ id: `e${i}`, value_type: type, value: normalized.value, expires_at: null });
}

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

/** A payment's inputs: a card, a guest buyer, an IP, a country; every tenth one hits an entry. */
function payment(i: number) {
  const hit = i % 10 === 0;
  const instrument = {
    cardNumber: hit ? `${String(50_000_000 + (i % 1000) * 500 + 5)}12345678` : `4${String(i).padStart(15, '7')}`,
    fingerprint: `fq${String(i).padStart(41, '0')}`,
    bin: null,
  } as unknown as ResolvedInstrument;
  const buyer = { billing_details: { email_address: `Buyer${i}@Shop.example`, address: { country: 'DE' } } };
  const ip = i % 2 ? `192.0.${i & 255}.${(i >> 8) & 255}` : `2001:db9::${(i & 0xffff).toString(16)}`;
  return { instrument, buyer, ip };
}
const inputs = Array.from({ length: 1_000 }, (_, i) => payment(i));

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
