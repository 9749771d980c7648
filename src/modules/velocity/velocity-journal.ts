import type { KeyCell, KeyCells, VelocityRecord } from './velocity-window.ts';
import { addCard, cellAt, findCell, unionCards } from './velocity-window.ts';

/**
 * The text of a sole writer's journal rows (velocity_journal, decision 0146): one row per merchant
 * account, minute and write, one line per entry, tab-separated:
 *
 *     key MACs (comma-separated)  currency  attempts  declines  amount  cards (comma-separated, may be empty)
 *
 * An entry adds its counts to the cell of each of its key MACs in the row's minute, and its cards to
 * their sets. A recorded attempt or decline is one line for all of its keys (one card at most); a
 * compacted minute is one line per cell (one key, its card set). MACs are base64url: no comma, tab or
 * newline. Parsing costs only the restart's first read of an account.
 */

/** A recorded attempt's or decline's line. */
export const recordLine = (keyMacs: readonly string[], entry: VelocityRecord): string =>
  `${keyMacs.join(',')}\t${entry.currency}\t${entry.attempts}\t${entry.declines}\t${entry.amount}\t${entry.card ?? ''}`;

/** A cell's line (a compacted minute). */
export const cellLine = (keyMac: string, cell: KeyCell): string =>
  `${keyMac}\t${cell.currency}\t${cell.attempts}\t${cell.declines}\t${cell.amount}\t${cell.cards.join(',')}`;

/**
 * Adds the lines of one row (minute `bucket`) into `cells` (key MAC → its cells); `created` hears
 * of each cell made.
 */
export function addLines(
  cells: Map<string, KeyCells>,
  bucket: number,
  text: string,
  created?: (keyMac: string, cell: KeyCell) => void,
): void {
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [macs = '', currency = '', attempts, declines, amount, cards = ''] = line.split('\t');
    const added = cards === '' ? [] : cards.split(',');
    for (const mac of macs.split(',')) {
      let byKey = cells.get(mac);
      if (!byKey) {
        byKey = [];
        cells.set(mac, byKey);
      }
      const fresh = findCell(byKey, currency, bucket) === undefined;
      const cell = cellAt(byKey, currency, bucket);
      if (fresh) created?.(mac, cell);
      cell.attempts += Number(attempts);
      cell.declines += Number(declines);
      cell.amount += Number(amount);
      cell.cards = added.length === 1 ? addCard(cell.cards, added[0]!) : unionCards(cell.cards, added);
    }
  }
}
