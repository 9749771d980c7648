import { CompiledQuery, sql, type Compilable, type Selectable } from 'kysely';
import { identifier, isExpression, PrecompiledQuery } from './insert-query.ts';
import type { Database } from './schema.ts';
import type { Executor } from './transaction.ts';

/**
 * The hot reads and updates of one row by its key, compiled without building and walking Kysely's
 * operation tree for each request (as insert-query.ts does for inserts):
 *
 * - `select * from "t" where "a" = $1 and "b" = $2`, what `selectFrom(t).selectAll().where(a, '=', …)
 *   .where(b, '=', …)` compiles to;
 * - `update "t" set "x" = $1, … where "a" = $n and "b" = $n+1[ and (status = $m) is true][ returning *]`,
 *   what `updateTable(t).set(patch).where(…)[.where(sql\`(status = ${s}) is true\`)][.returningAll()]`
 *   compiles to.
 *
 * Character for character (the group committer reads these texts, src/db/group-commit-sql.ts, and
 * the tests compare with Kysely's): a text is kept per table, columns and options (each name in the
 * key with its length first, so no two lists of names share a key). A patch holding a
 * Kysely expression (`sql\`…\``, `eb(…)`) goes through Kysely.
 */

type Table = keyof Database & string;

/** Equalities, in the order of the WHERE clause: `[["merchant_account_id", m], ["id", id]]` (plain column names: no table prefix). */
export type Keys = ReadonlyArray<readonly [column: string, value: unknown]>;

/** `select * from table where k1 = $1 and …`. */
export function selectByKeysQuery<T extends Table>(db: Executor, table: T, keys: Keys): PrecompiledQuery<Selectable<Database[T]>> {
  return new PrecompiledQuery(db, compileSelectByKeys(table, keys));
}

export interface UpdateOptions {
  /** Only while the row's status is this (`(status = $n) is true`, found by the key alone). */
  statusIs?: string;
  returningAll?: boolean;
}

/** A statement to batch (`compile()`, write-batch.ts) or run alone (`execute()`). */
export type Statement<R> = Compilable<R> & { execute(): Promise<unknown[]> };

/** `update table set … where k1 = $n and …`; Kysely's own builder when a value is an expression. */
export function updateByKeysQuery<R = never>(db: Executor, table: Table, patch: object, keys: Keys, options: UpdateOptions = {}): Statement<R> {
  const compiled = compileUpdateByKeys(table, patch as Record<string, unknown>, keys, options);
  if (compiled) return new PrecompiledQuery<R>(db, compiled);
  let query = db.updateTable(table).set(patch as never);
  for (const [column, value] of keys) query = query.where(column as never, '=', value as never);
  if (options.statusIs !== undefined) query = query.where(statusIsTrue(options.statusIs) as never);
  return (options.returningAll ? query.returningAll() : query) as unknown as Statement<R>;
}

const MAX_TEXTS = 1000;
const texts = new Map<string, string>();

function cached(key: string, build: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = build();
    if (texts.size < MAX_TEXTS) texts.set(key, text);
  }
  return text;
}

/** Pure (exported for tests). */
export function compileSelectByKeys(table: string, keys: Keys): CompiledQuery<any> {
  const parameters: unknown[] = [];
  let key = `s${table.length}:${table}`;
  for (const [column, value] of keys) {
    key += `,${column.length}:${column}`;
    parameters.push(value);
  }
  const text = cached(key, () => `select * from ${identifier(table)}${whereText(keys, 0)}`);
  return CompiledQuery.raw(text, parameters);
}

/** Pure: the compiled update, or null when a value is a Kysely expression (exported for tests). */
export function compileUpdateByKeys(table: string, patch: Record<string, unknown>, keys: Keys, options: UpdateOptions = {}): CompiledQuery<any> | null {
  const parameters: unknown[] = [];
  let key = `u${options.statusIs !== undefined ? 's' : ''}${options.returningAll ? 'r' : ''}${table.length}:${table}`;
  const columns: string[] = [];
  // Kysely's set: every key with a defined value, in the object's order.
  for (const column in patch) {
    const value = patch[column];
    if (value === undefined) continue;
    if (isExpression(value)) return null;
    columns.push(column);
    parameters.push(value);
    key += `,${column.length}:${column}`;
  }
  // Kysely refuses an update that sets nothing; so does the caller then.
  if (columns.length === 0) return null;
  key += ';';
  for (const [column, value] of keys) {
    key += `,${column.length}:${column}`;
    parameters.push(value);
  }
  if (options.statusIs !== undefined) parameters.push(options.statusIs);
  const text = cached(key, () => {
    const set = columns.map((column, i) => `${identifier(column)} = $${i + 1}`).join(', ');
    const status = options.statusIs !== undefined ? ` and (status = $${columns.length + keys.length + 1}) is true` : '';
    return `update ${identifier(table)} set ${set}${whereText(keys, columns.length)}${status}${options.returningAll ? ' returning *' : ''}`;
  });
  return CompiledQuery.raw(text, parameters);
}

/** ` where "a" = $offset+1 and "b" = $offset+2`. */
const whereText = (keys: Keys, offset: number) => (keys.length === 0 ? '' : ` where ${keys.map(([column], i) => `${identifier(column)} = $${offset + i + 1}`).join(' and ')}`);

/** The status guard of `updateByKeysQuery`, as a Kysely expression (the builder's fallback, and the tests). */
export const statusIsTrue = (status: string) => sql<boolean>`(status = ${status}) is true`;
