import type { Db } from '../../db/executor.ts';
import type { Executor } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import {
  addVelocityCounts,
  changedVelocityCounts,
  databaseNow,
  velocityWindow,
  type StoredVelocityRow,
} from './velocity.repo.ts';
import { addRecord, mergeBatch, rowsOf, type Batch } from './velocity-batch.ts';
import { PRUNE_MS, type VelocityCounters, type VelocityCountersOptions } from './velocity-counters.ts';
import {
  bucketOf,
  findCell,
  forgetOutsideWindows,
  measureOf,
  putCell,
  windowStartOf,
  type KeyCell,
  type CurrentAttempt,
  type KeyCells,
  type VelocityMeasureSpec,
  type VelocityRecord,
} from './velocity-window.ts';

/**
 * The velocity counts of processes sharing one PostgreSQL (decision 0136, 0142):
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
 */
interface StoredCell extends KeyCell {
  /** The row's updated_at (epoch ms): a read older than the copy does not replace it. */
  updatedAt?: number;
}

interface Tracked {
  /** key MAC → the stored cells of the buckets inside the horizon. */
  cells: Map<string, KeyCells>;
  horizonMinutes: number;
  ready: Promise<void>;
}

export class SharedVelocityCounters implements VelocityCounters {
  private readonly tracked = new Map<string, Tracked>();
  private pending: Batch = new Map();
  /** The batch being written: counted from memory until its new totals are back. */
  private unconfirmed: Batch | null = null;
  private cursor: number | null = null;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private prunedAt = 0;
  /** This process's mark on the rows it writes: it reads the others' changes only. */
  private readonly writer = uuidv7();
  /** count()'s sources, reused (no array per count). */
  private readonly sources: Array<KeyCells | undefined> = [undefined, undefined, undefined];
  private readonly syncMs: number;
  private readonly overlapMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: VelocityCountersOptions = {},
  ) {
    this.syncMs = options.syncMs ?? 1_000;
    this.overlapMs = options.overlapMs ?? 3_000;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.tracked.size > 0 || this.pending.size > 0) void this.sync();
    }, this.syncMs);
    this.timer.unref();
  }

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
      const clock = this.cursor === null ? await databaseNow(db) : null;
      const rows = await velocityWindow(db, merchantAccountId, since, before);
      for (const row of rows) this.apply(row);
      if (this.cursor === null && clock) this.cursor = clock.getTime();
    } catch (error) {
      // Not kept: the next authorization of the account reads again.
      if (this.tracked.get(merchantAccountId) === state) this.tracked.delete(merchantAccountId);
      throw error;
    }
  }

  count(merchantAccountId: string, keyMac: string, spec: VelocityMeasureSpec, current: CurrentAttempt | null): number {
    const sources = this.sources;
    sources[0] = this.tracked.get(merchantAccountId)?.cells.get(keyMac);
    sources[1] = this.unconfirmed?.get(merchantAccountId)?.get(keyMac);
    sources[2] = this.pending.get(merchantAccountId)?.get(keyMac);
    const measure = measureOf(sources, spec, this.now(), current);
    sources[0] = sources[1] = sources[2] = undefined;
    return measure;
  }

  record(merchantAccountId: string, keyMacs: readonly string[], entry: VelocityRecord): void {
    addRecord(this.pending, merchantAccountId, keyMacs, bucketOf(this.now()), entry);
  }

  /** Writes this process's counts and reads everyone's changes (one at a time). */
  sync(): Promise<void> {
    this.chain = this.chain.then(() => this.syncOnce());
    return this.chain;
  }

  private async syncOnce(): Promise<void> {
    const batch = this.pending;
    if (batch.size > 0) {
      this.pending = new Map();
      this.unconfirmed = batch;
      try {
        const totals = await addVelocityCounts(this.db, rowsOf(batch, this.writer));
        // The totals of this write include every earlier change of those cells: the freshest there are.
        for (const row of totals) this.apply(row, true);
      } catch (error) {
        // Kept for the next sync: the counts are not lost while the database is away.
        mergeBatch(this.pending, batch);
        this.options.log?.warn({ err: error }, 'velocity counts could not be written; kept for the next sync');
        return;
      } finally {
        this.unconfirmed = null;
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

  private apply(row: StoredVelocityRow, fresh = false): void {
    const state = this.tracked.get(row.merchant_account_id);
    const bucket = row.bucket_ms;
    if (!state || bucket < windowStartOf(this.now(), state.horizonMinutes)) return;
    let cells = state.cells.get(row.key_mac);
    if (!cells) {
      cells = [];
      state.cells.set(row.key_mac, cells);
    }
    const updatedAt = row.updated_ms;
    const held = findCell(cells, row.currency, bucket) as StoredCell | undefined;
    if (held?.updatedAt !== undefined && !fresh && held.updatedAt > updatedAt) return;
    const cell: StoredCell = {
      currency: row.currency,
      bucket,
      attempts: row.attempts,
      declines: row.declines,
      amount: Number(row.amount),
      cards: [...row.cards].sort(),
      updatedAt,
    };
    putCell(cells, cell);
  }

  private prune(): void {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_MS) return;
    this.prunedAt = now;
    forgetOutsideWindows(this.tracked.values(), now);
  }

  flush(): Promise<void> {
    return this.sync();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
