import type { VelocityRow } from './velocity.repo.ts';
import { addCard, addCell, cellAt, type KeyCells, type VelocityRecord } from './velocity-window.ts';

/** merchant account → key MAC → cells: a process's counts not yet in its copy of the stored cells. */
export type Batch = Map<string, Map<string, KeyCells>>;

/** The cells of one merchant account in `batch`, created empty. */
export function accountCells(batch: Batch, merchantAccountId: string): Map<string, KeyCells> {
  let byKey = batch.get(merchantAccountId);
  if (!byKey) {
    byKey = new Map();
    batch.set(merchantAccountId, byKey);
  }
  return byKey;
}

/** The cells of one key in `byKey`, created empty. */
export function keyCells(byKey: Map<string, KeyCells>, mac: string): KeyCells {
  let cells = byKey.get(mac);
  if (!cells) {
    cells = new Map();
    byKey.set(mac, cells);
  }
  return cells;
}

/** Adds every cell of `from` into `into`. */
export function mergeBatch(into: Batch, from: Batch): void {
  for (const [merchantAccountId, byKey] of from) {
    const target = accountCells(into, merchantAccountId);
    for (const [mac, cells] of byKey) {
      const targetCells = keyCells(target, mac);
      for (const [currency, byBucket] of cells)
        for (const [bucket, cell] of byBucket) addCell(cellAt(targetCells, currency, bucket), cell);
    }
  }
}

/** The batch as rows to write, in key order (two processes writing the same keys lock them in the same order). */
export function rowsOf(batch: Batch, writer: string): VelocityRow[] {
  const rows: VelocityRow[] = [];
  for (const merchantAccountId of [...batch.keys()].sort()) {
    const byKey = batch.get(merchantAccountId)!;
    for (const mac of [...byKey.keys()].sort())
      for (const [currency, byBucket] of [...byKey.get(mac)!].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
        for (const [bucket, cell] of [...byBucket].sort((a, b) => a[0] - b[0]))
          rows.push({
            merchant_account_id: merchantAccountId,
            writer,
            key_mac: mac,
            currency,
            bucket_start: new Date(bucket),
            attempts: cell.attempts,
            declines: cell.declines,
            amount: cell.amount,
            cards: cell.cards,
          });
  }
  return rows;
}

/** Takes the cells of buckets before `bucket` out of `batch` (all of them with Infinity); the accounts they came from. */
export function takeBefore(batch: Batch, bucket: number): { taken: Batch; accounts: Set<string> } {
  const taken: Batch = new Map();
  const accounts = new Set<string>();
  for (const [merchantAccountId, byKey] of batch) {
    for (const [mac, cells] of byKey) {
      for (const [currency, byBucket] of cells) {
        for (const [start, cell] of byBucket) {
          if (start >= bucket) continue;
          accounts.add(merchantAccountId);
          addCell(cellAt(keyCells(accountCells(taken, merchantAccountId), mac), currency, start), cell);
          byBucket.delete(start);
        }
        if (byBucket.size === 0) cells.delete(currency);
      }
      if (cells.size === 0) byKey.delete(mac);
    }
    if (byKey.size === 0) batch.delete(merchantAccountId);
  }
  return { taken, accounts };
}

/** One account's cells as the journal stores them: [key MAC, currency, bucket, attempts, declines, amount, cards]. */
type JournalCell = [string, string, number, number, number, number, string[]];

export function journalOf(byKey: Map<string, KeyCells>): string {
  const cells: JournalCell[] = [];
  for (const [mac, keyCellsOf] of byKey)
    for (const [currency, byBucket] of keyCellsOf)
      for (const [bucket, cell] of byBucket)
        cells.push([mac, currency, bucket, cell.attempts, cell.declines, cell.amount, cell.cards]);
  return JSON.stringify(cells);
}

/** Adds a journal's cells into one account's cells of `batch`. */
export function addJournal(batch: Batch, merchantAccountId: string, journal: string): void {
  const byKey = accountCells(batch, merchantAccountId);
  for (const [mac, currency, bucket, attempts, declines, amount, cards] of JSON.parse(journal) as JournalCell[])
    addCell(cellAt(keyCells(byKey, mac), currency, bucket), { attempts, declines, amount, cards });
}

/** Adds one attempt's (or decline's) counts under each of the keys, in `bucket`. */
export function addRecord(
  batch: Batch,
  merchantAccountId: string,
  keyMacs: readonly string[],
  bucket: number,
  entry: VelocityRecord,
): void {
  const byKey = accountCells(batch, merchantAccountId);
  for (const mac of keyMacs) {
    const cell = cellAt(keyCells(byKey, mac), entry.currency, bucket);
    cell.attempts += entry.attempts;
    cell.declines += entry.declines;
    cell.amount += entry.amount;
    if (entry.card) cell.cards = addCard(cell.cards, entry.card);
  }
}
