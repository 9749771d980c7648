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
export function insertQuery<T extends Table>(db: Executor, table: T, rows: Rows<T>, returning: 'all'): PrecompiledQuery<Selectable<Database[T]>>;
export function insertQuery<T extends Table>(db: Executor, table: T, rows: Rows<T>, returning?: 'all'): PrecompiledQuery<unknown> {
  const list = (Array.isArray(rows) ? rows : [rows]) as ReadonlyArray<Record<string, unknown>>;
  const compiled = compileInsert(table, list, returning === 'all');
  if (compiled) return new PrecompiledQuery(db, compiled);
  // A row with an expression, or no row: Kysely says what it means (or refuses it).
  const query = db.insertInto(table).values(rows as never);
  return new PrecompiledQuery(db, (returning === 'all' ? query.returningAll() : query).compile());
}

const texts = new TextCache();

/** Pure: the compiled insert, or null when a value is a Kysely expression or there is no row (exported for tests). */
export function compileInsert(table: string, rows: ReadonlyArray<Record<string, unknown>>, returningAll: boolean): CompiledQuery<any> | null {
  if (rows.length === 0) return null;
  // Kysely's columns: every key with a defined value, in order of first appearance over the rows.
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (value === undefined || seen.has(key)) continue;
      seen.add(key);
      columns.push(key);
    }
  }
  const parameters: unknown[] = [];
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
  const key = `${table}\u0000${columns.join('\u0000')}\u0000${rows.length}\u0000${returningAll}\u0000${defaults}`;
  return compiledQuery(texts.get(key, () => insertText(table, columns, rows, returningAll)), parameters);
}

function insertText(table: string, columns: string[], rows: ReadonlyArray<Record<string, unknown>>, returningAll: boolean): string {
  let n = 0;
  const tuples = rows.map((row) => `(${columns.map((column) => (row[column] === undefined ? 'default' : `$${++n}`)).join(', ')})`);
  return `insert into ${identifier(table)} (${columns.map(identifier).join(', ')}) values ${tuples.join(', ')}${returningAll ? ' returning *' : ''}`;
}
