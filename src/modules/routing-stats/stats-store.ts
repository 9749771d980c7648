import { SharedLoad } from '../../db/shared-load.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CountsOf } from './chooser.ts';
import type { OutcomeClass } from './outcome-class.ts';
import { addCounts, windowCounts, type StatsRow } from './routing-stats.repo.ts';
import { addTo, bucketOf, countsOf, windowStartOf, type Counts } from './sliding-window.ts';

/**
 * The success-rate statistics every process shares through the database (docs/routing.md,
 * "Success-rate routing"), kept off the authorization's path:
 *
 * - `record` adds an outcome to an in-memory batch (no database round trip); the batch is written
 *   every `flushMs` (1 s) and on close in one upsert that adds to the stored counts.
 * - `view` reads one merchant account's counts over a window from a per-process cache reloaded
 *   every `ttlMs` (5 s), plus this process's counts the cached load cannot have seen (the batch
 *   not yet written, and batches written after the load started).
 *
 * So a process sees its own outcomes at once, and every other process's within flushMs + ttlMs.
 */
interface Entry {
  merchantAccountId: string;
  serviceId: string;
  key: string;
  buckets: Map<number, Counts>;
}

/**
 * Loads and writes of this process are ordered by a sequence number (not the clock, whose
 * milliseconds can tie): a batch whose write committed before a load was sent is in that load; one
 * whose write started after the load answered is not; one whose write overlapped the load may be
 * either, so that load is not kept (the next view loads again) and the batch is left out of the
 * view meanwhile: at worst one view misses a second of this process's outcomes, and none counts
 * an outcome twice.
 */
interface Batch {
  entries: Map<string, Entry>;
  writeStarted: number | null;
  written: number | null;
  /** When its write committed (epoch ms), to forget it once every cached load has it. */
  writtenAt: number | null;
}

interface Loaded {
  issuedAt: number;
  issued: number;
  answered: number | null;
  counts: Promise<Map<string, Counts>>;
  /** Whether `counts` has ended, for a caller inside a transaction (`loaded`). */
  load: SharedLoad<Map<string, Counts>>;
}

export interface RoutingStatsOptions {
  flushMs?: number;
  ttlMs?: number;
  maxCached?: number;
  now?: () => number;
  log?: { warn(obj: object, msg?: string): void };
}

/** The key of one account's service and dimension key, in a batch's entries and a cached load alike. */
const entryId = (merchantAccountId: string, serviceId: string, key: string) =>
  `${merchantAccountId}\n${serviceId}\n${key}`;

const newBatch = (): Batch => ({ entries: new Map(), writeStarted: null, written: null, writtenAt: null });

export class RoutingStats {
  private pending = newBatch();
  private writing: Batch | null = null;
  private written: Batch[] = [];
  private chain: Promise<void> = Promise.resolve();
  private readonly cache = new Map<string, Loaded>();
  private timer: NodeJS.Timeout | null = null;
  private seq = 0;
  private readonly flushMs: number;
  private readonly ttlMs: number;
  private readonly maxCached: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Executor,
    private readonly options: RoutingStatsOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 1_000;
    this.ttlMs = options.ttlMs ?? 5_000;
    this.maxCached = options.maxCached ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Starts writing batches every flushMs (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.writing && this.pending.entries.size > 0) void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  /** Counts one authorization's outcome (null: not counted) under each of its dimension keys. */
  record(merchantAccountId: string, serviceId: string, keys: readonly string[], outcome: OutcomeClass | null): void {
    if (outcome === null) return;
    const bucket = bucketOf(this.now());
    const add = countsOf(outcome);
    for (const key of keys) {
      const id = entryId(merchantAccountId, serviceId, key);
      let entry = this.pending.entries.get(id);
      if (!entry) {
        entry = { merchantAccountId, serviceId, key, buckets: new Map() };
        this.pending.entries.set(id, entry);
      }
      const counts = entry.buckets.get(bucket);
      if (counts) addTo(counts, add);
      else entry.buckets.set(bucket, { ...add });
    }
  }

  /**
   * The counts of one merchant account's services over the last `windowMinutes` buckets. `db`:
   * where a miss loads from (a caller inside a database transaction passes it).
   */
  async view(merchantAccountId: string, windowMinutes: number, db: Executor = this.db): Promise<CountsOf> {
    const loaded = this.loaded(merchantAccountId, windowMinutes, db);
    const stored = await loaded.counts;
    const since = windowStartOf(this.now(), windowMinutes);
    const local: Batch[] = [];
    for (const batch of [this.pending, this.writing, ...this.written]) {
      if (batch === null || (batch.written !== null && batch.written < loaded.issued)) continue;
      if (batch.writeStarted === null || batch.writeStarted > loaded.answered!) local.push(batch);
      else this.forget(merchantAccountId, windowMinutes, loaded);
    }
    // One key string per lookup, for the cached load and every batch alike: V8 hashes a string once
    // and keeps its hash, where a string built per batch is built and hashed again (docs/routing.md).
    return (serviceId, key) => {
      const id = entryId(merchantAccountId, serviceId, key);
      const base = stored.get(id);
      const sum: Counts = { successes: base?.successes ?? 0, failures: base?.failures ?? 0, errors: base?.errors ?? 0 };
      for (const batch of local) {
        const entry = batch.entries.get(id);
        if (!entry) continue;
        for (const [bucket, counts] of entry.buckets) if (bucket >= since) addTo(sum, counts);
      }
      return sum.successes + sum.failures + sum.errors > 0 ? sum : undefined;
    };
  }

  /**
   * The cached load of an account's window, or a new one. A caller inside a database transaction
   * waits only for a load that has ended (`SharedLoad`): with one still under way on the pool it
   * gets a load of its own, on its transaction, which is not kept.
   */
  private loaded(merchantAccountId: string, windowMinutes: number, db: Executor): Loaded {
    const cacheKey = `${merchantAccountId}\n${windowMinutes}`;
    const now = this.now();
    const hit = this.cache.get(cacheKey);
    if (hit && now - hit.issuedAt < this.ttlMs) {
      if (hit.load.awaitableBy(db)) return hit;
      return this.load(merchantAccountId, windowMinutes, db, now);
    }
    const entry = this.load(merchantAccountId, windowMinutes, db, now);
    if (this.cache.size >= this.maxCached) this.cache.clear();
    this.cache.set(cacheKey, entry);
    // A failed load is not kept: the next call tries again.
    entry.counts.catch(() => this.forget(merchantAccountId, windowMinutes, entry));
    return entry;
  }

  private load(merchantAccountId: string, windowMinutes: number, db: Executor, now: number): Loaded {
    const issued = ++this.seq;
    const counts = windowCounts(db, merchantAccountId, new Date(windowStartOf(now, windowMinutes))).then((rows) => {
      entry.answered = ++this.seq;
      const map = new Map<string, Counts>();
      for (const r of rows)
        map.set(entryId(merchantAccountId, r.payment_service_id, r.dimension_key), {
          successes: r.successes,
          failures: r.failures,
          errors: r.errors,
        });
      return map;
    });
    const entry: Loaded = { issuedAt: now, issued, answered: null, counts, load: new SharedLoad(counts) };
    return entry;
  }

  private forget(merchantAccountId: string, windowMinutes: number, entry: Loaded): void {
    const cacheKey = `${merchantAccountId}\n${windowMinutes}`;
    if (this.cache.get(cacheKey) === entry) this.cache.delete(cacheKey);
  }

  /** Writes the counts recorded so far (one statement); batches are written one at a time. */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => this.writeOnce());
    return this.chain;
  }

  private async writeOnce(): Promise<void> {
    const batch = this.pending;
    if (batch.entries.size === 0) return;
    this.pending = newBatch();
    this.writing = batch;
    batch.writeStarted = ++this.seq;
    try {
      await addCounts(this.db, rowsOf(batch));
      batch.written = ++this.seq;
      batch.writtenAt = this.now();
      this.written.push(batch);
    } catch (error) {
      // Kept for the next flush: the counts are not lost while the database is away.
      this.merge(batch);
      this.options.log?.warn({ err: error }, 'routing statistics could not be written; kept for the next flush');
    } finally {
      this.writing = null;
      // A cached load is at most ttlMs old: a batch written before that is in every cached load.
      const horizon = this.now() - this.ttlMs - this.flushMs;
      this.written = this.written.filter((b) => (b.writtenAt ?? 0) >= horizon);
    }
  }

  private merge(batch: Batch): void {
    for (const [id, entry] of batch.entries) {
      const into = this.pending.entries.get(id);
      if (!into) {
        this.pending.entries.set(id, entry);
        continue;
      }
      for (const [bucket, counts] of entry.buckets) {
        const c = into.buckets.get(bucket);
        if (c) addTo(c, counts);
        else into.buckets.set(bucket, counts);
      }
    }
  }

  /** Forgets the cached loads (tests; a process that wants the database's counts now). */
  invalidate(): void {
    this.cache.clear();
  }

  /** Stops the timer and writes what is left (graceful shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}

function rowsOf(batch: Batch): StatsRow[] {
  const rows: StatsRow[] = [];
  for (const id of [...batch.entries.keys()].sort()) {
    const entry = batch.entries.get(id)!;
    for (const [bucket, counts] of [...entry.buckets].sort((a, b) => a[0] - b[0]))
      rows.push({
        merchant_account_id: entry.merchantAccountId,
        payment_service_id: entry.serviceId,
        dimension_key: entry.key,
        bucket_start: new Date(bucket),
        successes: counts.successes,
        failures: counts.failures,
        errors: counts.errors,
      });
  }
  return rows;
}
