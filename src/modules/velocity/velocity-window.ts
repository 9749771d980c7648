/**
 * Velocity counts over sliding windows of one-minute buckets (docs/risk.md, "Velocity limits").
 * Pure: the counters (velocity-counters.ts) keep these cells in memory, the database adds them up
 * across processes. A bucket counts while any part of it is inside the window: `window_minutes`
 * buckets, the current one included; older buckets fall out whole.
 */
export const VELOCITY_BUCKET_MS = 60_000;
/** The longest window a condition may set; older buckets are purged. */
export const MAX_VELOCITY_WINDOW_MINUTES = 1_440;
/**
 * Card MACs kept per cell. Distinct cards are counted exactly while a key's cells hold fewer; the
 * highest threshold a condition may set is below it, so a full cell decides every condition right.
 */
export const CARD_CAP = 64;
export const MAX_DISTINCT_CARDS_THRESHOLD = 50;

export const VELOCITY_KEYS = ['card_fingerprint', 'buyer', 'email_address', 'ip_address'] as const;
export type VelocityKey = (typeof VELOCITY_KEYS)[number];
export const VELOCITY_MEASURES = ['attempts', 'declines', 'distinct_cards', 'amount'] as const;
export type VelocityMeasure = (typeof VELOCITY_MEASURES)[number];

/** One key's counts in one currency and bucket. */
export interface Cell {
  attempts: number;
  declines: number;
  /** Minor units attempted, in the cell's currency. */
  amount: number;
  /** Short MACs of the distinct cards, at most CARD_CAP, sorted. */
  cards: string[];
}

/** A key's cell of one currency and bucket (start, epoch ms). */
export interface KeyCell extends Cell {
  currency: string;
  bucket: number;
}

/**
 * One key's cells, at most one per currency and bucket, in bucket order: an array, since a key has
 * a cell or two in most windows (half the memory of maps by currency and bucket, less garbage).
 */
export type KeyCells = KeyCell[];

/** What a condition counts (the `value` of a `velocity` condition, less key and threshold). */
export interface VelocityMeasureSpec {
  measure: VelocityMeasure;
  windowMinutes: number;
  /** `amount` only: the currency summed (others are not converted). */
  currency?: string | null;
}

/** The transaction being decided: it counts in the window it is checked against. */
export interface CurrentAttempt {
  currency: string;
  amount: number;
  /** Short MAC of its card, null without a card. */
  card: string | null;
}

export const bucketOf = (ms: number): number => ms - (ms % VELOCITY_BUCKET_MS);
export const windowStartOf = (now: number, windowMinutes: number): number =>
  bucketOf(now) - (windowMinutes - 1) * VELOCITY_BUCKET_MS;

/** The union of two sorted card lists, at most CARD_CAP (the lowest, as the database keeps them). */
export function unionCards(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return a as string[];
  const all = [...new Set([...a, ...b])].sort();
  return all.length > CARD_CAP ? all.slice(0, CARD_CAP) : all;
}

/** `cards` with one more card (a copy when it changes): unionCards(cards, [card]) without sorting all. */
export function addCard(cards: readonly string[], card: string): string[] {
  let lo = 0;
  let hi = cards.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cards[mid]! < card) lo = mid + 1;
    else hi = mid;
  }
  if (cards[lo] === card || lo >= CARD_CAP) return cards as string[];
  const next = cards.slice();
  next.splice(lo, 0, card);
  if (next.length > CARD_CAP) next.pop();
  return next;
}

/** Adds `from` into `into` (counts add; cards are a set). */
export function addCell(into: Cell, from: Cell): void {
  into.attempts += from.attempts;
  into.declines += from.declines;
  into.amount += from.amount;
  into.cards = unionCards(into.cards, from.cards);
}

/** The cell of (currency, bucket) in `cells`, or undefined. The newest is looked at first. */
export function findCell(cells: KeyCells, currency: string, bucket: number): KeyCell | undefined {
  for (let i = cells.length - 1; i >= 0; i--) {
    const cell = cells[i]!;
    if (cell.bucket === bucket && cell.currency === currency) return cell;
    if (cell.bucket < bucket) return undefined;
  }
  return undefined;
}

/** Puts a cell in its place in bucket order (usually last), replacing one of its currency and bucket. */
export function putCell(cells: KeyCells, cell: KeyCell): void {
  let i = cells.length;
  while (i > 0 && cells[i - 1]!.bucket > cell.bucket) i--;
  for (let j = i - 1; j >= 0 && cells[j]!.bucket === cell.bucket; j--)
    if (cells[j]!.currency === cell.currency) {
      cells[j] = cell;
      return;
    }
  cells.splice(i, 0, cell);
}

/** The cell of (currency, bucket) in `cells`, created empty. */
export function cellAt(cells: KeyCells, currency: string, bucket: number): KeyCell {
  let cell = findCell(cells, currency, bucket);
  if (!cell) {
    cell = { currency, bucket, attempts: 0, declines: 0, amount: 0, cards: [] };
    putCell(cells, cell);
  }
  return cell;
}

/**
 * The measure over the window ending now, summed over `sources` (the stored totals and this
 * process's counts not yet in them), the current attempt included. Counts add; cards are a union,
 * so a card seen in two sources counts once. A key's cards are usually one list (one minute): its
 * length is the count, and a set is made only when a second list joins it.
 */
export function measureOf(
  sources: ReadonlyArray<KeyCells | undefined>,
  spec: VelocityMeasureSpec,
  now: number,
  current: CurrentAttempt | null,
): number {
  const start = windowStartOf(now, spec.windowMinutes);
  const measure = spec.measure;
  let total = 0;
  let only: readonly string[] | null = null;
  let cards: Set<string> | null = null;
  for (const cells of sources) {
    if (!cells) continue;
    for (let i = cells.length - 1; i >= 0; i--) {
      const cell = cells[i]!;
      if (cell.bucket < start) break;
      if (measure === 'attempts') total += cell.attempts;
      else if (measure === 'declines') total += cell.declines;
      else if (measure === 'amount') total += cell.currency === spec.currency ? cell.amount : 0;
      else if (cell.cards.length === 0) continue;
      else if (cards) for (const card of cell.cards) cards.add(card);
      else if (only === null) only = cell.cards;
      else {
        cards = new Set(only);
        for (const card of cell.cards) cards.add(card);
      }
    }
  }
  if (measure === 'attempts') return current ? total + 1 : total;
  if (measure === 'amount') return current && current.currency === spec.currency ? total + current.amount : total;
  if (measure === 'declines') return total;
  const card = current?.card ?? null;
  if (cards) return card ? cards.add(card).size : cards.size;
  if (only === null) return card ? 1 : 0;
  return card && !hasCard(only, card) ? only.length + 1 : only.length;
}

/** Whether a sorted card list holds `card` (binary search). */
function hasCard(cards: readonly string[], card: string): boolean {
  let lo = 0;
  let hi = cards.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cards[mid]! < card) lo = mid + 1;
    else hi = mid;
  }
  return cards[lo] === card;
}

/** Drops the cells of buckets before `start`; true when nothing is left. */
export function forgetBefore(cells: KeyCells, start: number): boolean {
  let old = 0;
  while (old < cells.length && cells[old]!.bucket < start) old++;
  if (old > 0) cells.splice(0, old);
  return cells.length === 0;
}

/** Drops, in each account's cells, the buckets before its window at `now`, and the keys left empty. */
export function forgetOutsideWindows(
  accounts: Iterable<{ cells: Map<string, KeyCells>; horizonMinutes: number }>,
  now: number,
): void {
  for (const account of accounts) {
    const start = windowStartOf(now, account.horizonMinutes);
    for (const [mac, cells] of account.cells) if (forgetBefore(cells, start)) account.cells.delete(mac);
  }
}

/** Drops the cells of buckets in [since, before). */
export function forgetRange(cells: KeyCells, since: number, before: number): void {
  let kept = 0;
  for (const cell of cells) if (cell.bucket < since || cell.bucket >= before) cells[kept++] = cell;
  cells.length = kept;
}

/** What one authorization adds to its keys' cells (velocity-counters.ts `record`). */
export interface VelocityRecord {
  currency: string;
  amount: number;
  /** Short MAC of the card, null without one. */
  card: string | null;
  attempts: number;
  declines: number;
}
