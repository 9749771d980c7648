import type { Executor } from '../../db/transaction.ts';
import { velocityJournal, velocityWindow } from './velocity.repo.ts';
import { keyCells } from './velocity-batch.ts';
import { addLines } from './velocity-journal.ts';
import { minuteIn, type Minute } from './velocity-journal-writes.ts';
import { addCell, cellAt, type KeyCells } from './velocity-window.ts';

/**
 * A sole writer's read of one merchant account's cells (velocity-sole-writer.ts, decision 0146):
 * of the minutes from `since` (to `before`, or on), its rows of velocity_counts (written there before
 * decision 0146) and of velocity_journal, both by their primary key's range. On a first read
 * (`before` null) the minutes from `recent` on are listed for compaction (velocity-journal-writes.ts).
 */
export class AccountRead {
  readonly cells = new Map<string, KeyCells>();
  readonly minutes = new Map<number, Minute>();
  /** The ids of the journal rows read. */
  readonly seen = new Set<string>();

  private constructor(
    readonly since: number,
    readonly before: number | null,
    private readonly recent: number,
  ) {}

  static async of(
    db: Executor,
    merchantAccountId: string,
    range: { since: number; before: number | null; recent: number },
  ): Promise<AccountRead> {
    const read = new AccountRead(range.since, range.before, range.recent);
    const since = new Date(range.since);
    const before = range.before === null ? null : new Date(range.before);
    for (const row of await velocityWindow(db, merchantAccountId, since, before)) {
      addCell(cellAt(keyCells(read.cells, row.key_mac), row.currency, row.bucket_ms), {
        ...row,
        cards: [...row.cards].sort(),
      });
      // The journal alone does not hold this minute: it is not compacted.
      const minute = read.minuteOf(row.bucket_ms);
      if (minute) minute.compactable = false;
    }
    for (const row of await velocityJournal(db, merchantAccountId, since, before)) {
      read.seen.add(row.id);
      read.add(row.bucket_ms, row.cells, true);
    }
    return read;
  }

  /** Whether a minute is in the range read. */
  holds(bucket: number): boolean {
    return bucket >= this.since && (this.before === null || bucket < this.before);
  }

  /** Adds lines of the minute (`row`: a journal row's, counted for compaction). */
  add(bucket: number, text: string, row: boolean): void {
    const minute = this.minuteOf(bucket);
    addLines(this.cells, bucket, text, minute ? (mac, cell) => minute.cells.push([mac, cell]) : undefined);
    if (minute && row) {
      minute.rows++;
      minute.bytes += text.length + 1;
    }
  }

  private minuteOf(bucket: number): Minute | null {
    return this.before === null && bucket >= this.recent ? minuteIn(this.minutes, bucket) : null;
  }
}
