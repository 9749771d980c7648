import { uuidv7 } from '../../lib/ids.ts';
import type { JournalRow } from './velocity.repo.ts';
import { cellLine } from './velocity-journal.ts';
import type { KeyCell } from './velocity-window.ts';

/**
 * A sole writer's bookkeeping of its journal writes (velocity-sole-writer.ts, decision 0146): what a
 * minute holds until it is over, and what each write added, for a first read of an account that
 * runs while a write commits.
 */

/** One account's lines of one minute not yet written, and their length (newlines included). */
export interface Lines {
  text: string[];
  bytes: number;
}

/** account → minute → T. */
export type ByMinute<T> = Map<string, Map<number, T>>;

/** What the journal holds of one account's minute, until the minute is over and written. */
export interface Minute {
  /** Its cells in the copy, with their key MACs. */
  cells: Array<[string, KeyCell]>;
  /** Its rows in the journal, and their text's length. */
  rows: number;
  bytes: number;
  /** False when part of the minute is in velocity_counts (written before decision 0146). */
  compactable: boolean;
}

/** The lines one write added to one account's minute, and the id of the row that holds them. */
export interface Written {
  merchantAccountId: string;
  bucket: number;
  id: string;
  text: string[];
  bytes: number;
}

/** A write (they run one at a time, in `seq` order): under way until `done`. */
export interface JournalWrite {
  seq: number;
  rows: Written[];
  done: boolean;
}

/**
 * The lines of the writes after `after` (under way when a read began, or begun since) that the read
 * did not see (`seen`: the ids of the rows it read), for one account. Writes commit in order, so the
 * read saw a prefix of them: of a minute's rows, those after the last one it saw. A compacted row
 * holds the lines of the rows it replaced, so seeing it means seeing them.
 */
export function unseenLines(
  writes: readonly JournalWrite[],
  after: number,
  merchantAccountId: string,
  seen: ReadonlySet<string>,
): Array<{ bucket: number; text: string[] }> {
  const byMinute = new Map<number, Written[]>();
  for (const write of writes) {
    if (write.seq <= after) continue;
    for (const row of write.rows) {
      if (row.merchantAccountId !== merchantAccountId) continue;
      const list = byMinute.get(row.bucket) ?? [];
      list.push(row);
      byMinute.set(row.bucket, list);
    }
  }
  const unseen: Array<{ bucket: number; text: string[] }> = [];
  for (const [bucket, rows] of byMinute) {
    let first = rows.length;
    while (first > 0 && !seen.has(rows[first - 1]!.id)) first--;
    for (const row of rows.slice(first)) unseen.push({ bucket, text: row.text });
  }
  return unseen;
}

export const emptyMinute = (): Minute => ({ cells: [], rows: 0, bytes: 0, compactable: true });

/** The minute's entry in one account's `minutes`, created empty. */
export function minuteIn(minutes: Map<number, Minute>, bucket: number): Minute {
  let minute = minutes.get(bucket);
  if (!minute) {
    minute = emptyMinute();
    minutes.set(bucket, minute);
  }
  return minute;
}

/** An account's minute's entry in `byMinute`, created by `make`. */
export function entryIn<T>(byMinute: ByMinute<T>, merchantAccountId: string, bucket: number, make: () => T): T {
  let inner = byMinute.get(merchantAccountId);
  if (!inner) {
    inner = new Map();
    byMinute.set(merchantAccountId, inner);
  }
  let entry = inner.get(bucket);
  if (entry === undefined) {
    entry = make();
    inner.set(bucket, entry);
  }
  return entry;
}

export const emptyLines = (): Lines => ({ text: [], bytes: 0 });

/** About the length of a minute's compacted row (a line per cell): what its rows are compared with. */
function compactedBytes(minute: Minute): number {
  let bytes = 0;
  for (const [mac, cell] of minute.cells) bytes += mac.length + cell.currency.length + 25 + 17 * cell.cards.length;
  return bytes;
}

/** A minute of an account. */
export interface MinuteOf {
  merchantAccountId: string;
  bucket: number;
}

/**
 * The rows of one write: each account's `taken` lines of a minute as a row, except for the minutes
 * that are over (before `current`), which are decided: a minute whose rows (this write's included)
 * are at least twice as long as one row of its cells would be is compacted (its rows deleted, one
 * row of its cells written instead, holding this write's lines too); the others stay as written.
 * A compaction so rewrites at most half of what was written, and a minute takes at most twice its
 * compacted length.
 */
export function planWrite(minutes: ByMinute<Minute>, taken: ByMinute<Lines>, current: number) {
  const rows: JournalRow[] = [];
  const written: Written[] = [];
  const compacted: MinuteOf[] = [];
  const decided: MinuteOf[] = [];
  const row = (merchantAccountId: string, bucket: number, cells: string, lines: Lines | undefined) => {
    const id = uuidv7();
    rows.push({ merchant_account_id: merchantAccountId, bucket_start: new Date(bucket), id, cells });
    written.push({ merchantAccountId, bucket, id, text: lines?.text ?? [], bytes: lines?.bytes ?? 0 });
  };
  const compactedKeys = new Set<string>();
  for (const [merchantAccountId, byMinute] of minutes)
    for (const [bucket, minute] of byMinute) {
      if (bucket >= current) continue;
      decided.push({ merchantAccountId, bucket });
      const lines = taken.get(merchantAccountId)?.get(bucket);
      if (!minute.compactable || minute.rows + (lines ? 1 : 0) < 2) continue;
      if (minute.bytes + (lines?.bytes ?? 0) < 2 * compactedBytes(minute)) continue;
      compacted.push({ merchantAccountId, bucket });
      compactedKeys.add(`${merchantAccountId}\n${bucket}`);
      row(merchantAccountId, bucket, minute.cells.map(([mac, cell]) => cellLine(mac, cell)).join('\n'), lines);
    }
  for (const [merchantAccountId, byMinute] of taken)
    for (const [bucket, lines] of byMinute)
      if (!compactedKeys.has(`${merchantAccountId}\n${bucket}`))
        row(merchantAccountId, bucket, lines.text.join('\n'), lines);
  return { rows, written, compacted, decided };
}
