import type { Db } from '../../db/executor.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { deleteJournalMinutes, insertJournalRows } from './velocity.repo.ts';
import { AccountRead } from './velocity-account-read.ts';
import { keyCells } from './velocity-batch.ts';
import {
  PRUNE_MS,
  SOLE_WRITER_SYNC_MS,
  type VelocityCounters,
  type VelocityCountersOptions,
} from './velocity-counters.ts';
import { recordLine } from './velocity-journal.ts';
import {
  emptyLines,
  emptyMinute,
  entryIn,
  planWrite,
  unseenLines,
  type ByMinute,
  type JournalWrite,
  type Lines,
  type Minute,
} from './velocity-journal-writes.ts';
import {
  addCard,
  addCell,
  bucketOf,
  cellAt,
  findCell,
  forgetOutsideWindows,
  forgetRange,
  measureOf,
  VELOCITY_BUCKET_MS,
  windowStartOf,
  type KeyCell,
  type CurrentAttempt,
  type KeyCells,
  type VelocityMeasureSpec,
  type VelocityRecord,
} from './velocity-window.ts';

/**
 * The velocity counts of embedded PGlite's only process (decisions 0142, 0146): no other process can
 * open the data directory, so nothing is read back, and its counts live in velocity_journal only.
 *
 * - `record` adds to this process's copy of the account's cells and appends a line to the account's
 *   unwritten entries of the minute; `count` reads the copy: memory only.
 * - Every 10 seconds one transaction writes each account's unwritten lines of each minute as one row
 *   (never a row per cell: that cost PGlite 20 to 30 µs a cell). A minute that is over and whose rows
 *   are at least twice as long as one row of its cells would be (keys counted again and again) is
 *   compacted in the same transaction: its rows give way to one row of its cells.
 * - A first read of an account (a restart) reads its rows of the window, by the primary key; rows
 *   older than 24 hours are purged (purge-velocity-counts). velocity_counts is read too: rows a sole
 *   writer wrote there before decision 0146.
 *
 * A process that dies without closing loses at most its last 10 seconds of counts; `close` writes
 * everything.
 */
interface Account {
  /** key MAC → the cells of the buckets inside the horizon: what was read, and what was recorded since. */
  cells: Map<string, KeyCells>;
  horizonMinutes: number;
  ready: Promise<void>;
  /** False until its first read is done: records go to the journal only, the read adds them. */
  loaded: boolean;
}

export class SoleWriterCounters implements VelocityCounters {
  private readonly tracked = new Map<string, Account>();
  /** account → minute → lines not yet written. */
  private unwritten: ByMinute<Lines> = new Map();
  /** account → minute → what the journal holds of it, until the minute is over and written. */
  private readonly minutes: ByMinute<Minute> = new Map();
  /** Writes under way, and done ones that a first read under way may not have seen. */
  private writes: JournalWrite[] = [];
  private writeSeq = 0;
  private doneSeq = 0;
  /** First reads under way: the last write done when each began. */
  private readonly reads = new Set<{ after: number }>();
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private prunedAt = 0;
  /** count()'s one source, reused (no array per count). */
  private readonly source: Array<KeyCells | undefined> = [undefined];
  private readonly syncMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    private readonly options: VelocityCountersOptions = {},
  ) {
    this.syncMs = options.syncMs ?? SOLE_WRITER_SYNC_MS;
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.unwritten.size > 0 || this.minutes.size > 0 || this.tracked.size > 0) void this.sync();
    }, this.syncMs);
    this.timer.unref();
  }

  prepare(merchantAccountId: string, horizonMinutes: number, db: Executor = this.db): Promise<void> {
    const state = this.tracked.get(merchantAccountId);
    if (state && state.horizonMinutes >= horizonMinutes) return state.ready;
    const now = this.now();
    const since = windowStartOf(now, horizonMinutes);
    if (!state) {
      const fresh: Account = { cells: new Map(), horizonMinutes, ready: Promise.resolve(), loaded: false };
      this.tracked.set(merchantAccountId, fresh);
      fresh.ready = this.load(fresh, merchantAccountId, db, since, null);
      return fresh.ready;
    }
    // The buckets already held are current; only the older ones are read.
    const before = windowStartOf(now, state.horizonMinutes);
    state.horizonMinutes = horizonMinutes;
    state.ready = state.ready.then(() => this.load(state, merchantAccountId, db, since, before));
    return state.ready;
  }

  /**
   * Reads the account's cells of the minutes from `since` (to `before`, or on) into its copy, with
   * this process's lines the read did not see: unwritten ones, and those of writes under way or done
   * while it ran (velocity-journal-writes.ts).
   */
  private async load(state: Account, merchantAccountId: string, db: Executor, since: number, before: number | null) {
    const reading = { after: this.doneSeq };
    this.reads.add(reading);
    try {
      const recent = bucketOf(this.now()) - VELOCITY_BUCKET_MS;
      const read = await AccountRead.of(db, merchantAccountId, { since, before, recent });
      for (const { bucket, text } of unseenLines(this.writes, reading.after, merchantAccountId, read.seen))
        if (read.holds(bucket)) read.add(bucket, text.join('\n'), true);
      for (const [bucket, lines] of this.unwritten.get(merchantAccountId) ?? [])
        if (read.holds(bucket)) read.add(bucket, lines.text.join('\n'), false);
      this.settle(state, merchantAccountId, read);
    } catch (error) {
      // Not kept: the next authorization of the account reads again (its unwritten lines stay).
      if (this.tracked.get(merchantAccountId) === state) {
        this.tracked.delete(merchantAccountId);
        this.minutes.delete(merchantAccountId);
      }
      throw error;
    } finally {
      this.reads.delete(reading);
      this.forgetWrites();
    }
  }

  /** A read's cells into the account's copy: the whole copy on a first read, the older buckets otherwise. */
  private settle(state: Account, merchantAccountId: string, read: AccountRead): void {
    if (read.before === null) {
      state.cells = read.cells;
      if (read.minutes.size > 0) this.minutes.set(merchantAccountId, read.minutes);
      state.loaded = true;
      return;
    }
    // The minutes read replace what the copy held of them; none of them is compacted any more.
    const held = this.minutes.get(merchantAccountId);
    for (const bucket of held?.keys() ?? []) if (bucket < read.before) held!.delete(bucket);
    for (const byKey of state.cells.values()) forgetRange(byKey, read.since, read.before);
    for (const [mac, byKey] of read.cells) {
      const into = keyCells(state.cells, mac);
      for (const cell of byKey) addCell(cellAt(into, cell.currency, cell.bucket), cell);
    }
  }

  count(merchantAccountId: string, keyMac: string, spec: VelocityMeasureSpec, current: CurrentAttempt | null): number {
    const source = this.source;
    source[0] = this.tracked.get(merchantAccountId)?.cells.get(keyMac);
    const measure = measureOf(source, spec, this.now(), current);
    source[0] = undefined;
    return measure;
  }

  record(merchantAccountId: string, keyMacs: readonly string[], entry: VelocityRecord): void {
    const bucket = bucketOf(this.now());
    const lines = entryIn(this.unwritten, merchantAccountId, bucket, emptyLines);
    const line = recordLine(keyMacs, entry);
    lines.text.push(line);
    lines.bytes += line.length + 1;
    const state = this.tracked.get(merchantAccountId);
    if (!state?.loaded) return;
    for (const mac of keyMacs) {
      const cell = this.cellOf(state, merchantAccountId, mac, entry.currency, bucket);
      cell.attempts += entry.attempts;
      cell.declines += entry.declines;
      cell.amount += entry.amount;
      if (entry.card) cell.cards = addCard(cell.cards, entry.card);
    }
  }

  /** The copy's cell, created empty (and listed in its minute, for compaction). */
  private cellOf(state: Account, merchantAccountId: string, mac: string, currency: string, bucket: number): KeyCell {
    const byKey = keyCells(state.cells, mac);
    let cell = findCell(byKey, currency, bucket);
    if (!cell) {
      cell = cellAt(byKey, currency, bucket);
      entryIn(this.minutes, merchantAccountId, bucket, emptyMinute).cells.push([mac, cell]);
    }
    return cell;
  }

  sync(): Promise<void> {
    this.chain = this.chain.then(() => this.write());
    return this.chain;
  }

  /**
   * One write, in one transaction: each account's unwritten lines of a minute as a row, except the
   * minutes that are over and compacted (their rows deleted, one row of their cells instead).
   */
  private async write(): Promise<void> {
    const taken = this.unwritten;
    this.unwritten = new Map();
    const { rows, written, compacted, decided } = planWrite(this.minutes, taken, bucketOf(this.now()));
    if (rows.length > 0) {
      const write: JournalWrite = { seq: ++this.writeSeq, rows: written, done: false };
      this.writes.push(write);
      try {
        await withTransaction(this.db, async (tx) => {
          await deleteJournalMinutes(tx, compacted);
          await insertJournalRows(tx, rows);
        });
        write.done = true;
        this.doneSeq = write.seq;
      } catch (error) {
        // Kept for the next write: the counts are not lost while the database is away.
        this.writes = this.writes.filter((w) => w !== write);
        for (const [id, byMinute] of taken) for (const [bucket, lines] of byMinute) this.putBack(id, bucket, lines);
        this.options.log?.warn({ err: error }, 'velocity counts could not be written; kept for the next sync');
        return;
      } finally {
        this.forgetWrites();
      }
      for (const { merchantAccountId, bucket, bytes } of written) {
        const minute = this.minutes.get(merchantAccountId)?.get(bucket);
        if (!minute) continue;
        minute.rows++;
        minute.bytes += bytes;
      }
    }
    for (const { merchantAccountId, bucket } of decided) {
      const byMinute = this.minutes.get(merchantAccountId);
      byMinute?.delete(bucket);
      if (byMinute?.size === 0) this.minutes.delete(merchantAccountId);
    }
    this.prune();
  }

  private putBack(merchantAccountId: string, bucket: number, lines: Lines): void {
    const held = entryIn(this.unwritten, merchantAccountId, bucket, emptyLines);
    held.text = lines.text.concat(held.text);
    held.bytes += lines.bytes;
  }

  /** Done writes that every first read under way began after are forgotten. */
  private forgetWrites(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const read of this.reads) oldest = Math.min(oldest, read.after);
    this.writes = this.writes.filter((w) => !w.done || w.seq > oldest);
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
