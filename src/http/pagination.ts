import type { RequestContext } from '../context.ts';
import type { KeysetPage } from '../db/keyset.ts';
import { invalidCursor, type CursorPosition } from './cursor.ts';

export interface PageQuery {
  cursor?: string | null;
  limit: number;
}

export interface ListEnvelope<Item> {
  items: Item[];
  limit: number;
  next_cursor: string | null;
  previous_cursor: string | null;
}

type SortKey = [Date | string | number, string];

/** A decoded key must have the shape `keyOf` produces: [ISO timestamp, id], or [whole number, id] for an ordered list. */
function checkKey(key: (string | number)[], kind: 'timestamp' | 'integer'): void {
  const [at, id] = key;
  const goodFirst =
    kind === 'integer' ? Number.isSafeInteger(at) : typeof at === 'string' && !Number.isNaN(Date.parse(at));
  if (key.length !== 2 || !goodFirst || typeof id !== 'string') throw invalidCursor();
}

/**
 * Runs one keyset page and wraps it in the list envelope. `list` names the list with its filters
 * (cursors of one are refused by another); `keyOf` gives a row's sort key, matching the columns the
 * repo sorts by; `scope` binds cursors to the merchant account (instance-wide lists pass their own).
 */
export async function listPage<Row, Item>(
  ctx: RequestContext,
  list: string,
  query: PageQuery,
  fetch: (position: CursorPosition | null, limit: number) => Promise<KeysetPage<Row>>,
  toItem: (row: Row) => Item,
  keyOf: (row: Row) => SortKey,
  scope: string = ctx.merchantAccountId,
  keyKind: 'timestamp' | 'integer' = 'timestamp',
): Promise<ListEnvelope<Item>> {
  const codec = ctx.deps.cursors;
  const position = query.cursor === undefined || query.cursor === null ? null : codec.decode(list, scope, query.cursor);
  if (position) checkKey(position.key, keyKind);
  const page = await fetch(position, query.limit);
  const encode = (direction: CursorPosition['direction'], key: SortKey, inclusive = false) =>
    codec.encode(list, scope, {
      direction,
      key: [key[0] instanceof Date ? key[0].toISOString() : key[0], key[1]],
      inclusive,
    });
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  // An empty page (its rows were deleted) continues from the cursor's own row, which then belongs
  // to the page in the other direction.
  const from = position ? (position.key as SortKey) : null;
  const edge = (direction: CursorPosition['direction'], row: Row | undefined) =>
    row ? encode(direction, keyOf(row)) : from && encode(direction, from, !position?.inclusive);
  return {
    items: page.rows.map(toItem),
    limit: query.limit,
    next_cursor: page.hasNext ? edge('next', last) : null,
    previous_cursor: page.hasPrev ? edge('prev', first) : null,
  };
}
