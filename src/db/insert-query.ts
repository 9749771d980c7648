import type { CompiledQuery, Insertable, Selectable } from 'kysely';
import { compiledQuery, isExpression, identifier, PrecompiledQuery, TextCache } from './kysely-text.ts';
import type { Database } from './schema.ts';
import type { Executor } from './transaction.ts';

/**
 * `insert into "t" ("a", "b") values ($1, $2)[, (…)] [returning *]` for rows of plain values, the
 * statement Kysely's `insertInto(t).values(rows)` compiles to, character for character (the group
 * committer reads these texts, src/db/group-commit-sql.ts), without building and walking Kysely's
 * operation tree for each request: the text is kept per table, columns, row count and returning.
 * The hot inserts of a payment (its attempt, history, audit entry and webhook outbox) go through
 * here. Rows holding a Kysely expression go through Kysely.
 */

type Table = keyof Database & string;

type Rows<T extends Table> = Insertable<Database[T]> | ReadonlyArray<Insertable<Database[T]>>;

export function insertQuery<T extends Table>(db: Executor, table: T, rows: Rows<T>): PrecompiledQuery<never>;
export function insertQuery<T extends Table>(
  db: Executor,
  table: T,
  rows: Rows<T>,
  returning: 'all',
): PrecompiledQuery<Selectable<Database[T]>>;
export function insertQuery<T extends Table>(
  db: Executor,
  table: T,
  rows: Rows<T>,
  returning?: 'all',
): PrecompiledQuery<unknown> {
  const list = (Array.isArray(rows) ? rows : [rows]) as ReadonlyArray<Record<string, unknown>>;
  const compiled = compileInsert(table, list, returning === 'all');
  if (compiled) return new PrecompiledQuery(db, compiled);
  // A row with an expression, or no row: Kysely says what it means (or refuses it).
  const query = db.insertInto(table).values(rows as never);
  return new PrecompiledQuery(db, (returning === 'all' ? query.returningAll() : query).compile());
}

/**
 * The texts, found by walking the row's columns through a trie (a node per table and column
 * prefix) rather than by a key string joining them: a 70-column row's key was about 1.5 kB to build
 * and hash per insert. A node keeps its texts by row count, `returning` and `default` cells.
 * At most MAX_NODES nodes are kept; past that a row's text is built each time, as TextCache does.
 */
interface ColumnNode {
  readonly columns: readonly string[];
  readonly children: Map<string, ColumnNode>;
  readonly texts: TextCache;
}

const MAX_NODES = 5000;
const tables = new Map<string, ColumnNode>();
let nodes = 0;

const newNode = (columns: readonly string[]): ColumnNode => ({
  columns,
  children: new Map(),
  texts: new TextCache(100),
});

function tableNode(table: string): ColumnNode {
  let node = tables.get(table);
  if (node === undefined) {
    node = newNode([]);
    if (nodes < MAX_NODES) {
      tables.set(table, node);
      nodes++;
    }
  }
  return node;
}

function child(node: ColumnNode, column: string): ColumnNode {
  let next = node.children.get(column);
  if (next === undefined) {
    next = newNode([...node.columns, column]);
    if (nodes < MAX_NODES) {
      node.children.set(column, next);
      nodes++;
    }
  }
  return next;
}

/** Pure: the compiled insert, or null when a value is a Kysely expression or there is no row (exported for tests). */
export function compileInsert(
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
  returningAll: boolean,
): CompiledQuery<any> | null {
  if (rows.length === 0) return null;
  let node = tableNode(table);
  const parameters: unknown[] = [];
  if (rows.length === 1) {
    // One row (almost every insert): its columns are its keys with a defined value, in order.
    const row = rows[0]!;
    for (const key in row) {
      const value = row[key];
      if (value === undefined) continue;
      if (isExpression(value)) return null;
      parameters.push(value);
      node = child(node, key);
    }
    const { columns } = node;
    return compiledQuery(
      node.texts.get(returningAll ? 'returning' : '', () => insertText(table, columns, rows, returningAll)),
      parameters,
    );
  }
  // Kysely's columns: every key with a defined value, in order of first appearance over the rows.
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key in row) {
      if (row[key] === undefined || seen.has(key)) continue;
      seen.add(key);
      node = child(node, key);
    }
  }
  const { columns } = node;
  // Which cells are `default` (a row without a column another row has) is part of the text.
  let defaults = '';
  for (const row of rows) {
    for (const column of columns) {
      const value = row[column];
      if (value === undefined) defaults += `${parameters.length},`;
      else if (isExpression(value)) return null;
      else parameters.push(value);
    }
  }
  return compiledQuery(
    node.texts.get(`${rows.length}\u0000${returningAll}\u0000${defaults}`, () =>
      insertText(table, columns, rows, returningAll),
    ),
    parameters,
  );
}

function insertText(
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<Record<string, unknown>>,
  returningAll: boolean,
): string {
  let n = 0;
  const tuples = rows.map(
    (row) => `(${columns.map((column) => (row[column] === undefined ? 'default' : `$${++n}`)).join(', ')})`,
  );
  return `insert into ${identifier(table)} (${columns.map(identifier).join(', ')}) values ${tuples.join(', ')}${returningAll ? ' returning *' : ''}`;
}
