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
    cells = [];
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
      for (const cell of cells) addCell(cellAt(targetCells, cell.currency, cell.bucket), cell);
    }
  }
}

/** The batch as rows to write, in key order (two processes writing the same keys lock them in the same order). */
export function rowsOf(batch: Batch, writer: string): VelocityRow[] {
  const rows: VelocityRow[] = [];
  for (const merchantAccountId of [...batch.keys()].sort()) {
    const byKey = batch.get(merchantAccountId)!;
    for (const mac of [...byKey.keys()].sort())
      for (const cell of [...byKey.get(mac)!].sort((a, b) =>
        a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : a.bucket - b.bucket,
      ))
        rows.push({
          merchant_account_id: merchantAccountId,
          writer,
          key_mac: mac,
          currency: cell.currency,
          bucket_start: new Date(cell.bucket),
          attempts: cell.attempts,
          declines: cell.declines,
          amount: cell.amount,
          cards: cell.cards,
        });
  }
  return rows;
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
