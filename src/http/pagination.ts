import type { RequestContext } from '../context.ts';
import type { KeysetPage } from '../db/keyset.ts';
import type { CursorPosition } from './cursor.ts';

export interface PageQuery {
  cursor?: string;
  limit: number;
}

export interface ListEnvelope<Item> {
  items: Item[];
  limit: number;
  next_cursor: string | null;
  previous_cursor: string | null;
}

type SortKey = [Date | string, string];

/**
 * Runs one keyset page and wraps it in the list envelope. `list` names the list (cursors of one
 * list are refused by another); `keyOf` gives a row's sort key, matching the columns the repo sorts by.
 */
export async function listPage<Row, Item>(
  ctx: RequestContext,
  list: string,
  query: PageQuery,
  fetch: (position: CursorPosition | null, limit: number) => Promise<KeysetPage<Row>>,
  toItem: (row: Row) => Item,
  keyOf: (row: Row) => SortKey,
): Promise<ListEnvelope<Item>> {
  const codec = ctx.deps.cursors;
  const position = query.cursor === undefined ? null : codec.decode(list, ctx.merchantAccountId, query.cursor);
  const page = await fetch(position, query.limit);
  const encode = (direction: CursorPosition['direction'], key: SortKey) =>
    codec.encode(list, ctx.merchantAccountId, { direction, key: [key[0] instanceof Date ? key[0].toISOString() : key[0], key[1]] });
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    items: page.rows.map(toItem),
    limit: query.limit,
    next_cursor: page.hasNext ? (last ? encode('next', keyOf(last)) : position && encode('next', position.key as SortKey)) : null,
    previous_cursor: page.hasPrev ? (first ? encode('prev', keyOf(first)) : position && encode('prev', position.key as SortKey)) : null,
  };
}
