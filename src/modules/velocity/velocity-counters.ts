import type { Db } from '../../db/executor.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import {
  addVelocityCounts,
  changedVelocityCounts,
  databaseNow,
  appendVelocityJournal,
  velocityJournal,
  velocityWindow,
  type StoredVelocityRow,
} from './velocity.repo.ts';
import {
  addJournal,
  addRecord,
  journalOf,
  keyCells,
  mergeBatch,
  rowsOf,
  takeBefore,
  type Batch,
} from './velocity-batch.ts';
import {
  addCell,
  bucketOf,
  cellAt,
  forgetBefore,
  measureOf,
  windowStartOf,
  type Cell,
  type CurrentAttempt,
  type KeyCells,
  type VelocityMeasureSpec,
  type VelocityRecord,
} from './velocity-window.ts';

/**
 * The velocity counts every process shares through the database (docs/risk.md, "Velocity
 * limits"; decisions 0136, 0142), kept off the authorization's path:
 *
 * - `record` adds to an in-memory batch (no database round trip).
 * - Once a second (`syncMs`) the batch is written in one upsert that adds to the stored cells and
 *   returns their new totals, then the cells of the tracked merchant accounts that other processes
 *   changed since the last read are read by `updated_at`; both replace this process's copy of them.
 * - `count` sums this copy and the counts of this process not yet confirmed by a read: memory only.
 *
 * A merchant account is tracked from its first `prepare` (one read of its window, awaited once per
 * process), so a process sees its own counts at once and every other process's within about two
 * sync periods. A read starts `overlapMs` before the previous one to catch writes that committed
 * late (a write slower than that to commit is seen when its cell changes again).
 *
 * `soleWriter` (embedded PGlite: one process only can open its data directory, decision 0142): no
 * other process changes the table, so nothing is read back. Every 10 seconds, in one transaction,
 * the cells of the minutes that are over go to velocity_counts (each cell once, added to the copy
 * here) and the cells of the current minute to the account's row of velocity_journal, which a
 * restarted process reads back; on close everything goes to velocity_counts. A process that dies
 * without closing loses at most its last 10 seconds of counts.
 */
interface StoredCell extends Cell {
  /** The row's updated_at (epoch ms): a read older than the copy does not replace it. */
  updatedAt?: number;
}

interface Tracked {
  /** key MAC → the stored cells of the buckets inside the horizon. */
  cells: Map<string, KeyCells>;
  horizonMinutes: number;
  ready: Promise<void>;
}

export interface VelocityCountersOptions {
  /** The only process writing the table (embedded PGlite): no reads back, a write every 10 s by default. */
  soleWriter?: boolean;
  syncMs?: number;
  overlapMs?: number;
  now?: () => number;
  log?: { warn(obj: object, msg?: string): void };
}

/** How often the copies drop buckets past their horizon (buckets are a minute long). */
const PRUNE_MS = 60_000;
/** A sole writer's write period: what a process that dies without closing can lose (decision 0142). */
export const SOLE_WRITER_SYNC_MS = 10_000;

export class VelocityCounters {
  private readonly tracked = new Map<string, Tracked>();
  private pending: Batch = new Map();
  /** The batch being written: counted from memory until its new totals are back. */
  private unconfirmed: Batch[] = [];
  private cursor: number | null = null;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private prunedAt = 0;
  /** This process's mark on the rows it writes: it reads the others' changes only. */
  private readonly writer = uuidv7();
  private readonly soleWriter: boolean;
  /** A sole writer's accounts with journal rows, and what it recorded since it last wrote them. */
  private readonly journaled = new Set<string>();
  private delta: Batch = new Map();
  private readonly syncMs: number;
  private readonly overlapMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: VelocityCountersOptions = {},
  ) {
    this.soleWriter = options.soleWriter ?? false;
    this.syncMs = options.syncMs ?? (this.soleWriter ? SOLE_WRITER_SYNC_MS : 1_000);
    this.overlapMs = options.overlapMs ?? 3_000;
    this.now = options.now ?? Date.now;
  }

  /** Starts syncing every syncMs (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.tracked.size > 0 || this.pending.size > 0) void this.sync();
    }, this.syncMs);
    this.timer.unref();
  }

  /**
   * Makes sure this process holds the merchant account's cells of the last `horizonMinutes`. The
   * first call reads them (`db`: a caller inside a database transaction passes it); a longer
   * horizon later reads only the older buckets it adds.
   */
  prepare(merchantAccountId: string, horizonMinutes: number, db: Executor = this.db): Promise<void> {
    const state = this.tracked.get(merchantAccountId);
    if (state && state.horizonMinutes >= horizonMinutes) return state.ready;
    const now = this.now();
    const since = new Date(windowStartOf(now, horizonMinutes));
    if (!state) {
      const fresh: Tracked = { cells: new Map(), horizonMinutes, ready: Promise.resolve() };
      this.tracked.set(merchantAccountId, fresh);
      fresh.ready = this.load(fresh, merchantAccountId, db, since, null);
      return fresh.ready;
    }
    // The buckets already held are kept current by the syncs; only the older ones are read.
    const before = new Date(windowStartOf(now, state.horizonMinutes));
    state.horizonMinutes = horizonMinutes;
    state.ready = state.ready.then(() => this.load(state, merchantAccountId, db, since, before));
    return state.ready;
  }

  private async load(state: Tracked, merchantAccountId: string, db: Executor, since: Date, before: Date | null) {
    try {
      const clock = this.cursor === null && !this.soleWriter ? await databaseNow(db) : null;
      const rows = await velocityWindow(db, merchantAccountId, since, before);
      // A sole writer's cells of the minute it stopped in, not yet in velocity_counts (first read only).
      const journal = this.soleWriter && before === null ? await velocityJournal(db, merchantAccountId) : [];
      for (const row of rows) this.apply(row);
      for (const cells of journal) addJournal(this.pending, merchantAccountId, cells);
      if (journal.length > 0) this.journaled.add(merchantAccountId);
      if (this.cursor === null && clock) this.cursor = clock.getTime();
    } catch (error) {
      // Not kept: the next authorization of the account reads again.
      if (this.tracked.get(merchantAccountId) === state) this.tracked.delete(merchantAccountId);
      throw error;
    }
  }

  /** The measure of one key over the window ending now, `current` included. Memory only. */
  count(merchantAccountId: string, keyMac: string, spec: VelocityMeasureSpec, current: CurrentAttempt | null): number {
    const sources = [
      this.tracked.get(merchantAccountId)?.cells.get(keyMac),
      ...this.unconfirmed.map((batch) => batch.get(merchantAccountId)?.get(keyMac)),
      this.pending.get(merchantAccountId)?.get(keyMac),
    ];
    return measureOf(sources, spec, this.now(), current);
  }

  /** Counts an attempt (or a decline) under each of the keys. */
  record(merchantAccountId: string, keyMacs: readonly string[], entry: VelocityRecord): void {
    const bucket = bucketOf(this.now());
    addRecord(this.pending, merchantAccountId, keyMacs, bucket, entry);
    if (this.soleWriter) addRecord(this.delta, merchantAccountId, keyMacs, bucket, entry);
  }

  /** Writes this process's counts and reads everyone's changes (one at a time). */
  sync(): Promise<void> {
    this.chain = this.chain.then(() => (this.soleWriter ? this.syncSole(false) : this.syncOnce()));
    return this.chain;
  }

  /**
   * A sole writer's sync, in one transaction (a cell is in velocity_counts or in the journal, never
   * in both): the cells of the minutes that are over (`all`: every cell) go to velocity_counts, and
   * their accounts' journal rows are replaced by one row of what remains (the current minute); the
   * other accounts' journals get a row of what was recorded since their last one.
   */
  private async syncSole(all: boolean): Promise<void> {
    const { taken, accounts } = takeBefore(this.pending, all ? Number.POSITIVE_INFINITY : bucketOf(this.now()));
    const delta = this.delta;
    this.delta = new Map();
    const replaced = new Map<string, string | null>();
    for (const id of accounts) {
      const remaining = this.pending.get(id);
      if (remaining || this.journaled.has(id)) replaced.set(id, remaining ? journalOf(remaining) : null);
    }
    const appended = new Map<string, string>();
    for (const [id, byKey] of delta) if (!accounts.has(id)) appended.set(id, journalOf(byKey));
    if (taken.size > 0 || replaced.size > 0 || appended.size > 0) {
      this.unconfirmed.push(taken);
      try {
        await withTransaction(this.db, async (tx) => {
          if (taken.size > 0) await addVelocityCounts(tx, rowsOf(taken, this.writer), { shared: false });
          await appendVelocityJournal(tx, replaced, appended);
        });
        // Nobody else writes: the table's totals are this copy plus what was taken.
        this.keep(taken);
        for (const [id, cells] of replaced) if (cells === null) this.journaled.delete(id);
        for (const id of [...appended.keys(), ...replaced.keys()]) if (this.pending.has(id)) this.journaled.add(id);
      } catch (error) {
        // Kept for the next sync: the counts are not lost while the database is away.
        mergeBatch(this.pending, taken);
        mergeBatch(this.delta, delta);
        this.options.log?.warn({ err: error }, 'velocity counts could not be written; kept for the next sync');
      } finally {
        this.unconfirmed = this.unconfirmed.filter((b) => b !== taken);
      }
    }
    this.prune();
  }

  private async syncOnce(): Promise<void> {
    const batch = this.pending;
    if (batch.size > 0) {
      this.pending = new Map();
      this.unconfirmed.push(batch);
      try {
        const totals = await addVelocityCounts(this.db, rowsOf(batch, this.writer));
        // The totals of this write include every earlier change of those cells: the freshest there are.
        for (const row of totals) this.apply(row, true);
        this.unconfirmed = this.unconfirmed.filter((b) => b !== batch);
      } catch (error) {
        // Kept for the next sync: the counts are not lost while the database is away.
        this.unconfirmed = this.unconfirmed.filter((b) => b !== batch);
        mergeBatch(this.pending, batch);
        this.options.log?.warn({ err: error }, 'velocity counts could not be written; kept for the next sync');
        return;
      }
    }
    if (this.cursor === null) return;
    try {
      const { rows, now } = await changedVelocityCounts(
        this.db,
        [...this.tracked.keys()],
        new Date(this.cursor - this.overlapMs),
        this.writer,
      );
      for (const row of rows) this.apply(row);
      this.cursor = now.getTime();
    } catch (error) {
      this.options.log?.warn({ err: error }, 'velocity counts could not be read; the next sync reads them');
    }
    this.prune();
  }

  /** Adds a written batch to the copy (a sole writer's), for the buckets inside each account's horizon. */
  private keep(batch: Batch): void {
    const now = this.now();
    for (const [merchantAccountId, byKey] of batch) {
      const state = this.tracked.get(merchantAccountId);
      if (!state) continue;
      const start = windowStartOf(now, state.horizonMinutes);
      for (const [mac, cells] of byKey)
        for (const [currency, byBucket] of cells)
          for (const [bucket, cell] of byBucket)
            if (bucket >= start) addCell(cellAt(keyCells(state.cells, mac), currency, bucket), cell);
    }
  }

  private apply(row: StoredVelocityRow, fresh = false): void {
    const state = this.tracked.get(row.merchant_account_id);
    const bucket = row.bucket_ms;
    if (!state || bucket < windowStartOf(this.now(), state.horizonMinutes)) return;
    let cells = state.cells.get(row.key_mac);
    if (!cells) {
      cells = new Map();
      state.cells.set(row.key_mac, cells);
    }
    let byBucket = cells.get(row.currency);
    if (!byBucket) {
      byBucket = new Map();
      cells.set(row.currency, byBucket);
    }
    const updatedAt = row.updated_ms;
    const held = byBucket.get(bucket) as StoredCell | undefined;
    if (held?.updatedAt !== undefined && !fresh && held.updatedAt > updatedAt) return;
    const cell: StoredCell = {
      attempts: row.attempts,
      declines: row.declines,
      amount: Number(row.amount),
      cards: [...row.cards].sort(),
      updatedAt,
    };
    byBucket.set(bucket, cell);
  }

  private prune(): void {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_MS) return;
    this.prunedAt = now;
    for (const state of this.tracked.values()) {
      const start = windowStartOf(now, state.horizonMinutes);
      for (const [mac, cells] of state.cells) if (forgetBefore(cells, start)) state.cells.delete(mac);
    }
  }

  /** Writes every count now, the current minute's too (a sole writer's syncs keep those in the journal). */
  flush(): Promise<void> {
    this.chain = this.chain.then(() => (this.soleWriter ? this.syncSole(true) : this.syncOnce()));
    return this.chain;
  }

  /** Stops the timer and writes what is left (graceful shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
