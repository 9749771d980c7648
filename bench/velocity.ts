/**
 * `npm run bench:velocity`: the server CPU of velocity checks per authorization (docs/risk.md,
 * "Velocity limits"), in process, on PGlite in a temporary data directory as the server runs it (or
 * on PostgreSQL with DATABASE_URL). Each simulated authorization does what a card transaction of an
 * account with velocity rules does: the keyed MACs of its IP address, e-mail address and card
 * (vault), the counts of three conditions (distinct cards per IP in 10 minutes, attempts per e-mail
 * in 60, amount per card in 60), its attempt recorded, and one in ten its decline.
 * `VELOCITY_BENCH_PER_SECOND` authorizations (default 200) are paced into each second of real time,
 * so that a read's overlap holds what it would in production, and the counters sync as the server's
 * do: every second on PostgreSQL (write, then read everyone's changes), every 10 seconds on PGlite
 * (the sole writer: each account's counts journalled, a row per minute; decision 0146). `VELOCITY_BENCH_AUTHORIZATIONS` (default 6,000:
 * 30 s) are measured after as many of warm-up that fill the table and the copy.
 * Printed: CPU (user + system of this process, which includes PGlite's work) per authorization, the
 * part of it spent in the checks (MACs, counts, recording) and in the syncs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/deps.ts';
import type { VelocityConditionValue } from '../src/modules/flows/velocity-condition.ts';
import { createVelocityCounters } from '../src/modules/velocity/create-velocity-counters.ts';
import { SOLE_WRITER_SYNC_MS } from '../src/modules/velocity/velocity-counters.ts';
import { cardMacOf, velocityCheck } from '../src/modules/velocity/velocity.service.ts';
import { createMerchantAccount } from '../test/helpers/factories.ts';

const COUNT = Number(process.env.VELOCITY_BENCH_AUTHORIZATIONS ?? 6_000);
const PER_SECOND = Number(process.env.VELOCITY_BENCH_PER_SECOND ?? 200);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-velocity-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const runtime = await createRuntime(config);
const deps = runtime.deps;
await deps.velocity.close();
// The server's mode, synced by the loop below instead of a timer.
const soleWriter = deps.dbKind === 'pglite';
const counters = createVelocityCounters(deps.db, { soleWriter });
const PER_SYNC = PER_SECOND * ((soleWriter ? SOLE_WRITER_SYNC_MS : 1_000) / 1_000);
const merchant = await createMerchantAccount(deps);
const needs = {
  keys: new Set(['ip_address', 'email_address', 'card_fingerprint'] as const),
  horizonMinutes: 60,
};
const conditions: VelocityConditionValue[] = [
  { key: 'ip_address', measure: 'distinct_cards', window_minutes: 10, threshold: 5 },
  { key: 'email_address', measure: 'attempts', window_minutes: 60, threshold: 20 },
  { key: 'card_fingerprint', measure: 'amount', window_minutes: 60, threshold: 100_000, currency: 'USD' },
];

// mulberry32: the same keys in every run.
let seed = 1;
const next = (n: number) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) % n;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function authorizations(count: number): Promise<{ total: number; checks: number; syncs: number; reads: number }> {
  let checkCpu = 0;
  let syncCpu = 0;
  let readCpu = 0;
  let paced = Date.now();
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const fingerprint = `fp-${next(20_000)}-abcdefghijklmnopqrstuvwxyz`;
    const values = {
      ip_address: `10.${next(50)}.${next(100)}.1`,
      email_address: `buyer${next(5_000)}@example.com`,
      card_fingerprint: fingerprint,
      buyer: null,
    };
    const beforeCheck = process.cpuUsage();
    const check = await velocityCheck({ vault: deps.vault, velocity: counters }, deps.db, merchant, needs, values, {
      currency: 'USD',
      amount: 1000 + next(9000),
      card: cardMacOf(fingerprint),
    });
    for (const c of conditions) check.lookup(c);
    check.recordAttempt();
    if (next(10) === 0) check.recordDecline();
    const checked = process.cpuUsage(beforeCheck);
    checkCpu += checked.user + checked.system;
    if ((i + 1) % PER_SYNC === 0) {
      const before = process.cpuUsage();
      await counters.sync();
      const used = process.cpuUsage(before);
      syncCpu += used.user + used.system;
      // A second sync with nothing to write: what reading back everyone's changes costs.
      const beforeRead = process.cpuUsage();
      await counters.sync();
      const read = process.cpuUsage(beforeRead);
      readCpu += read.user + read.system;
    }
    if ((i + 1) % PER_SECOND === 0) {
      // In real time: PER_SECOND authorizations a second, so a read's overlap holds what it would.
      paced += 1000;
      await sleep(Math.max(0, paced - Date.now()));
    }
  }
  const used = process.cpuUsage(start);
  return {
    // The second sync of each is not a real process's: left out of the total.
    total: (used.user + used.system - readCpu) / 1000,
    checks: checkCpu / 1000,
    syncs: syncCpu / 1000,
    reads: readCpu / 1000,
  };
}

await authorizations(COUNT);
const measured = await authorizations(COUNT);
const rows = await deps.db
  .selectFrom(soleWriter ? 'velocity_journal' : 'velocity_counts')
  .select((eb) => eb.fn.countAll<string>().as('n'))
  .execute();
const perAuth = (ms: number) => ((ms / COUNT) * 1000).toFixed(1);
process.stdout.write(
  `Velocity on ${deps.dbKind}: ${COUNT} authorizations (after ${COUNT} of warm-up) at ${PER_SECOND} a second, 3 keys, 3 conditions, a sync every ${PER_SYNC} (${soleWriter ? 'sole writer: journalled, a row per minute' : 'write + read back'}); table ${rows[0]?.n} ${soleWriter ? 'journal rows' : 'cells'}.\n` +
    `CPU per authorization: ${perAuth(measured.total)} µs, of which the checks ${perAuth(measured.checks)} µs and the syncs ${perAuth(measured.syncs)} µs; ` +
    `a second read with nothing written (not in a real process) ${perAuth(measured.reads)} µs more.\n`,
);
await counters.close();
await runtime.close();
fs.rmSync(dataDir, { recursive: true, force: true });
