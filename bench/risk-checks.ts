/**
 * The risk checks' row of `npm run bench` (issue 55): the server CPU that a blocklist check
 * (1,000 entries), velocity checks (three rules) and the card-testing guard add to a card
 * authorization, together. Measured in the bench's process, calling the three checks as a payment
 * does, not as the difference of two HTTP runs: they add about a tenth of a millisecond to an
 * authorization that costs the server a few, less than two runs of the same HTTP scenario differ
 * by on a shared host. Nothing else an authorization does changes with them.
 *
 * A runtime of its own on the database the server uses (PostgreSQL: the server's schema; PGlite: a
 * data directory of its own, as the server's is locked by it), with the server's counters mode:
 * on PGlite the sole writer, written every 10 s; on PostgreSQL written and read back every second
 * (decision 0142). Each authorization, at `perSecond` paced in real time (the counters' reads and
 * writes see what they would): the blocklist's facts and match (the account's list compiled and
 * cached, as after its first payment), the velocity check (the keyed MACs of IP, e-mail and card,
 * three conditions counted, the attempt recorded), the guard's check (IP and buyer sources) and,
 * for the one in ten declined, the declines recorded by both. A warm-up of `warmupSeconds` first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import type { Deps, RequestContext } from '../src/context.ts';
import { createRuntime } from '../src/deps.ts';
import { BlocklistMatcher } from '../src/modules/blocklist-entries/blocklist-matcher.ts';
import { checkBlocklist } from '../src/modules/blocklist-entries/blocklist-check.service.ts';
import { cardTestingCheck } from '../src/modules/card-testing/card-testing.service.ts';
import type { VelocityConditionValue } from '../src/modules/flows/velocity-condition.ts';
import { createVelocityCounters } from '../src/modules/velocity/create-velocity-counters.ts';
import { SOLE_WRITER_SYNC_MS } from '../src/modules/velocity/velocity-counters.ts';
import { cardMacOf, velocityCheck } from '../src/modules/velocity/velocity.service.ts';
import { blocklistFacts } from '../src/modules/transactions/create/blocklist-stop.ts';
import { createMerchantAccount } from '../test/helpers/factories.ts';
import { benchBlocklistEntries, benchBlocklistPayment } from './blocklist-entries.ts';
import { cpuTicks, perRequest, type CpuFigures } from './cpu.ts';
import type { RiskChecksFigures } from './risk-checks-summary.ts';

export interface RiskChecksOptions {
  /** The server's database (its schema), or null for PGlite. */
  databaseUrl: string | null;
  /** PostgreSQL: the server's data directory, whose master key opens the instance's secrets. */
  serverDataDir?: string;
  seconds: number;
  warmupSeconds: number;
  perSecond: number;
  entries: number;
}

export interface RiskChecksResult {
  figures: RiskChecksFigures;
  /** Wall time of the checks of one authorization, ms, sorted (the syncs left out: they run beside). */
  latencies: number[];
  duration: number;
  /** server: the process's CPU per authorization (ms); PostgreSQL's own where it is local. */
  cpu: CpuFigures;
}

const CONDITIONS: VelocityConditionValue[] = [
  { key: 'ip_address', measure: 'distinct_cards', window_minutes: 10, threshold: 5 },
  { key: 'email_address', measure: 'attempts', window_minutes: 60, threshold: 20 },
  { key: 'card_fingerprint', measure: 'amount', window_minutes: 60, threshold: 100_000, currency: 'USD' },
];
const NEEDS = { keys: new Set(['ip_address', 'email_address', 'card_fingerprint'] as const), horizonMinutes: 60 };

/** mulberry32: the same payments in every run. */
function generator(seed: number) {
  return (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
}

const SAMPLE_EVERY = 4;
const cpuNow = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureRiskChecks(options: RiskChecksOptions): Promise<RiskChecksResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-risk-checks-'));
  const config = loadConfig({
    DATA_DIR: options.databaseUrl && options.serverDataDir ? options.serverDataDir : dataDir,
    LOG_LEVEL: 'silent',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
  });
  const runtime = await createRuntime(config);
  try {
    await runtime.deps.velocity.close();
    const soleWriter = runtime.deps.dbKind === 'pglite';
    // The server's counters, synced by the loop at the server's period instead of by a timer.
    const counters = createVelocityCounters(runtime.deps.db, { soleWriter });
    const deps: Deps = { ...runtime.deps, velocity: counters };
    const merchant = await createMerchantAccount(deps);
    const matcher = new BlocklistMatcher(benchBlocklistEntries(options.entries), Date.now());
    await deps.readCaches.blocklists.get(merchant, async () => matcher as never);
    const ctx = { deps, merchantAccountId: merchant, principal: null, log: console } as unknown as RequestContext;
    const syncSeconds = (soleWriter ? SOLE_WRITER_SYNC_MS : 1_000) / 1_000;
    const next = generator(1);
    const blocklistInputs = Array.from({ length: 1_000 }, (_, i) => benchBlocklistPayment(i));
    const parts = { blocklist: 0, velocity: 0, guard: 0, syncs: 0 };
    const latencies: number[] = [];

    const authorize = async (i: number) => {
      const fingerprint = `fp-${next(20_000)}-abcdefghijklmnopqrstuvwxyz`;
      const ip = `10.${next(50)}.${next(100)}.1`;
      const email = `buyer${next(5_000)}@example.com`;
      const buyerId = `buyer-${next(5_000)}`;
      const amount = 1000 + next(9000);
      const declined = next(10) === 0;
      const started = performance.now();
      // One authorization in SAMPLE_EVERY is split into parts (each reading is a system call).
      const sampled = i % SAMPLE_EVERY === 0;
      let mark = sampled ? cpuNow() : 0;
      const lap = (part: keyof typeof parts) => {
        if (!sampled) return;
        const now = cpuNow();
        parts[part] += (now - mark) * SAMPLE_EVERY;
        mark = now;
      };
      const b = blocklistInputs[i % blocklistInputs.length]!;
      const facts = blocklistFacts(b.instrument, 'US', b.buyer, null, b.ip);
      await checkBlocklist(deps.db, deps, merchant, facts);
      lap('blocklist');
      const sources = { ip_address: ip, buyer: buyerId, checkout_session: null, embed_token: null };
      const guard = await cardTestingCheck(ctx, deps.db, {
        sources,
        cardFingerprint: fingerprint,
        amount,
        currency: 'USD',
      });
      lap('guard');
      const values = { ip_address: ip, email_address: email, card_fingerprint: fingerprint, buyer: null };
      const current = { currency: 'USD', amount, card: cardMacOf(fingerprint) };
      const velocity = await velocityCheck(deps, deps.db, merchant, NEEDS, values, current);
      for (const condition of CONDITIONS) velocity.lookup(condition);
      velocity.recordAttempt();
      if (declined) velocity.recordDecline();
      lap('velocity');
      await guard?.settle(
        declined
          ? { status: 'authorization_declined', error_code: 'do_not_honor' }
          : { status: 'authorization_succeeded' },
      );
      lap('guard');
      latencies.push(performance.now() - started);
    };

    const run = async (seconds: number) => {
      const count = seconds * options.perSecond;
      const perSync = options.perSecond * syncSeconds;
      let paced = Date.now();
      for (let i = 0; i < count; i++) {
        await authorize(i);
        if ((i + 1) % perSync === 0) {
          const before = cpuNow();
          await counters.sync();
          parts.syncs += cpuNow() - before;
        }
        if ((i + 1) % options.perSecond === 0) {
          paced += 1000;
          await sleep(Math.max(0, paced - Date.now()));
        }
      }
      return count;
    };

    await run(options.warmupSeconds);
    Object.assign(parts, { blocklist: 0, velocity: 0, guard: 0, syncs: 0 });
    latencies.length = 0;
    const ticks = cpuTicks(undefined, options.databaseUrl !== null);
    const cpuBefore = cpuNow();
    const began = Date.now();
    const count = await run(options.seconds);
    const duration = (Date.now() - began) / 1000;
    const processUs = (cpuNow() - cpuBefore) / count;
    const local = perRequest(ticks, cpuTicks(undefined, options.databaseUrl !== null), count);
    await counters.close();
    latencies.sort((a, b) => a - b);
    return {
      figures: {
        database: soleWriter ? 'PGlite' : 'PostgreSQL',
        authorizations: count,
        perSecond: options.perSecond,
        entries: matcher.size,
        syncSeconds,
        soleWriter,
        blocklistUs: parts.blocklist / count,
        velocityUs: parts.velocity / count,
        guardUs: parts.guard / count,
        syncsUs: parts.syncs / count,
        processUs,
      },
      latencies,
      duration,
      cpu: { ...local, server: processUs / 1000 },
    };
  } finally {
    await runtime.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
