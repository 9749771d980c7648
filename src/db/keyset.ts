import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { CursorPosition } from '../http/cursor.ts';
import type { Executor } from './transaction.ts';

export interface KeysetOptions {
  /** Sort columns, most significant first, e.g. ['created_at', 'id']; the page is newest first. */
  columns: [string, string];
  limit: number;
  position: CursorPosition | null;
  /** Oldest (smallest) first instead of newest first, e.g. an ordered list by position. */
  ascending?: boolean;
  /**
   * Bound the first column on its own too (`first <= at` beside `(first, second) < (at, id)`):
   * for a view whose second column is computed, where the row comparison cannot reach the index
   * (transaction_events, decision 0150).
   */
  boundFirst?: boolean;
}

export interface KeysetPage<Row> {
  rows: Row[];
  hasNext: boolean;
  hasPrev: boolean;
}

/**
 * One keyset page, newest first, in one statement: the page (limit + 1 rows, the extra row says
 * whether more follow) and a one-row probe in the other direction (says whether a page lies
 * before), joined by UNION ALL. Both halves are range scans on the (…, created_at, id) index, so
 * page 5,000 costs what page 1 costs. Rows carry their position in `_pos` so the order is exact
 * whatever the database's collation.
 *
 * Timestamps in sort keys must be stored with millisecond precision (`timestamptz(3)`): the cursor
 * carries them as ISO strings, which hold milliseconds only, so microseconds would skip rows.
 */
export async function keysetPage<DB, TB extends keyof DB, Row>(
  db: Executor,
  base: SelectQueryBuilder<DB, TB, Row> | SelectQueryBuilder<DB, TB, Row>[],
  options: KeysetOptions,
): Promise<KeysetPage<Row>> {
  type Tagged = Row & { _part: string; _pos: number | string };
  let tagged: Tagged[];
  if (Array.isArray(base)) {
    const { pageQuery, probeQuery } = keysetBranchQueries(base, options);
    const statement = probeQuery ? sql<Tagged>`(${pageQuery}) UNION ALL (${probeQuery})` : sql<Tagged>`${pageQuery}`;
    tagged = (await statement.execute(db)).rows;
  } else {
    const { pageQuery, probeQuery } = keysetQueries(base, options);
    if (probeQuery) {
      const result = await sql<Tagged>`(${pageQuery}) UNION ALL (${probeQuery})`.execute(db);
      tagged = result.rows;
    } else {
      tagged = (await pageQuery.execute()) as Tagged[];
    }
  }
  const pageRows = tagged.filter((row) => row._part === 'p').sort((a, b) => Number(a._pos) - Number(b._pos));
  const probed = tagged.some((row) => row._part === 'b');
  const more = pageRows.length > options.limit;
  const rows = pageRows.slice(0, options.limit).map(({ _part, _pos, ...row }) => row as unknown as Row);
  const goingBack = options.position?.direction === 'prev';
  if (goingBack) rows.reverse();
  return {
    rows,
    hasNext: goingBack ? probed : more,
    hasPrev: goingBack ? more : probed,
  };
}

/** The page's query and, after a cursor, the probe's: what keysetPage runs (plan tests explain them). */
export function keysetQueries<DB, TB extends keyof DB, Row>(
  base: SelectQueryBuilder<DB, TB, Row>,
  options: KeysetOptions,
) {
  const { page, probe, pageOrder, probeOrder } = bounded(base, options);
  const pageQuery = page
    .select(sql<string>`'p'`.as('_part'))
    .select(sql<number>`row_number() over (order by ${pageOrder})`.as('_pos'))
    .orderBy(sql`${pageOrder}`)
    .limit(options.limit + 1);

  const probeQuery = probe
    ? probe
        .select(sql<string>`'b'`.as('_part'))
        .select(sql<number>`row_number() over (order by ${probeOrder})`.as('_pos'))
        .orderBy(sql`${probeOrder}`)
        .limit(1)
    : null;
  return { pageQuery, probeQuery };
}

/**
 * keysetQueries over branches that split the rows between them (no row in two branches), such as
 * the answered and the in-flight transactions, each read from its own partial index (decision
 * 0154): each branch is bounded, ordered and limited on its own, and the page merges them
 * (UNION ALL, the same order, the same limit). Same page, cursors and probe as one query over all rows.
 * The merge orders the branches' output by `columns`, so they must be unqualified (`updated_at`, not `t.updated_at`).
 */
export function keysetBranchQueries<DB, TB extends keyof DB, Row>(
  bases: SelectQueryBuilder<DB, TB, Row>[],
  options: KeysetOptions,
) {
  const parts = bases.map((base) => bounded(base, options));
  const { pageOrder, probeOrder } = parts[0]!;
  const merged = (
    tag: string,
    order: RawBuilder<unknown>,
    limit: number,
    branches: SelectQueryBuilder<DB, TB, Row>[],
  ) =>
    sql`SELECT u.*, ${sql.lit(tag)} AS _part, row_number() over (order by ${order}) AS _pos FROM (${sql.join(
      branches.map((branch) => sql`(${branch.orderBy(sql`${order}`).limit(limit)})`),
      sql` UNION ALL `,
    )}) AS u ORDER BY ${order} LIMIT ${sql.lit(limit)}`;
  const pageQuery = merged(
    'p',
    pageOrder,
    options.limit + 1,
    parts.map((part) => part.page),
  );
  const probes = parts.flatMap((part) => (part.probe ? [part.probe] : []));
  const probeQuery = probes.length > 0 ? merged('b', probeOrder, 1, probes) : null;
  return { pageQuery, probeQuery };
}

/** The base query within the cursor's bounds (page and probe), and both orders. */
function bounded<DB, TB extends keyof DB, Row>(
  base: SelectQueryBuilder<DB, TB, Row>,
  { columns, position, ascending = false, boundFirst = false }: KeysetOptions,
) {
  const [first, second] = columns;
  const keyTuple = sql`(${sql.ref(first)}, ${sql.ref(second)})`;
  const goingBack = position?.direction === 'prev';
  // "forward" = towards older rows (descending order), or towards larger keys when ascending:
  // `towardsSmaller` says which way the page runs in key order.
  const towardsSmaller = goingBack === ascending;
  const asc = sql`${sql.ref(first)} ASC, ${sql.ref(second)} ASC`;
  const desc = sql`${sql.ref(first)} DESC, ${sql.ref(second)} DESC`;
  const pageOrder = towardsSmaller ? desc : asc;
  const probeOrder = towardsSmaller ? asc : desc;

  const at = position ? sql`(${sql.val(keyValue(position.key[0]))}, ${sql.val(position.key[1])})` : null;
  let page = base;
  let probe = base;
  if (at) {
    // The row the cursor points at belongs to the page we came from (the probe includes it), unless
    // the cursor was made from an empty page, where it belongs to the page asked for.
    const inclusive = position?.inclusive === true;
    const pageOp = sql.raw(!towardsSmaller ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<');
    const probeOp = sql.raw(!towardsSmaller ? (inclusive ? '<' : '<=') : inclusive ? '>' : '>=');
    page = page.where(sql<boolean>`${keyTuple} ${pageOp} ${at}`);
    probe = probe.where(sql<boolean>`${keyTuple} ${probeOp} ${at}`);
    if (boundFirst && position) {
      const firstAt = sql.val(keyValue(position.key[0]));
      page = page.where(sql<boolean>`${sql.ref(first)} ${sql.raw(towardsSmaller ? '<=' : '>=')} ${firstAt}`);
      probe = probe.where(sql<boolean>`${sql.ref(first)} ${sql.raw(towardsSmaller ? '>=' : '<=')} ${firstAt}`);
    }
  }
  return { page, probe: at ? probe : null, pageOrder, probeOrder };
}

function keyValue(value: string | number | undefined): string | number | Date | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : value;
}
