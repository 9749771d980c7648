import { sql, type Compilable, type CompiledQuery, type Selectable } from 'kysely';
import { compiledQuery, identifier, isExpression, PrecompiledQuery, TextCache } from './kysely-text.ts';
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
 * Kysely expression other than a `sql\`…\`` template of plain values (`eb(…)`, a subquery) goes
 * through Kysely.
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
  if (compiled) return new PrecompiledQuery<R>(db, compiled as CompiledQuery<R>);
  let query = db.updateTable(table).set(patch as never);
  for (const [column, value] of keys) query = query.where(column as never, '=', value as never);
  if (options.statusIs !== undefined) query = query.where(statusIsTrue(options.statusIs) as never);
  return (options.returningAll ? query.returningAll() : query) as unknown as Statement<R>;
}

const texts = new TextCache();

/** Pure (exported for tests). */
export function compileSelectByKeys(table: string, keys: Keys): CompiledQuery<any> {
  const parameters: unknown[] = [];
  let key = `s${table.length}:${table}`;
  for (const [column, value] of keys) {
    key += `,${column.length}:${column}`;
    parameters.push(value);
  }
  return compiledQuery(texts.get(key, () => `select * from ${identifier(table)}${whereText(keys, 0)}`), parameters);
}

/**
 * Pure: the compiled update, or null when a value is a Kysely expression other than a plain
 * `sql\`…\`` template of values (exported for tests). Such a template (the capture limit read from
 * the account's settings, say) is written as Kysely writes it: its fragments with `$n` between them.
 */
export function compileUpdateByKeys(table: string, patch: Record<string, unknown>, keys: Keys, options: UpdateOptions = {}): CompiledQuery<any> | null {
  const parameters: unknown[] = [];
  let key = `u${options.statusIs !== undefined ? 's' : ''}${options.returningAll ? 'r' : ''}${table.length}:${table}`;
  // Per column set: null for a value, else the template's fragments.
  const columns: string[] = [];
  const templates: Array<readonly string[] | null> = [];
  // Kysely's set: every key with a defined value, in the object's order.
  for (const column in patch) {
    const value = patch[column];
    if (value === undefined) continue;
    columns.push(column);
    key += `,${column.length}:${column}`;
    if (!isExpression(value)) {
      templates.push(null);
      parameters.push(value);
      continue;
    }
    const raw = plainTemplate(value);
    if (!raw) return null;
    templates.push(raw.sqlFragments);
    for (const fragment of raw.sqlFragments) key += `=${fragment.length}:${fragment}`;
    for (const parameter of raw.parameters) parameters.push(parameter.value);
  }
  // Kysely refuses an update that sets nothing; so does the caller then.
  if (columns.length === 0) return null;
  const setParameters = parameters.length;
  key += ';';
  for (const [column, value] of keys) {
    key += `,${column.length}:${column}`;
    parameters.push(value);
  }
  if (options.statusIs !== undefined) parameters.push(options.statusIs);
  const text = texts.get(key, () => {
    let n = 0;
    const set = columns.map((column, i) => {
      const fragments = templates[i];
      if (!fragments) return `${identifier(column)} = $${++n}`;
      // Kysely's visitRaw: each fragment, then the next parameter, while there is one.
      let value = '';
      fragments.forEach((fragment, j) => (value += j < fragments.length - 1 ? `${fragment}$${++n}` : fragment));
      return `${identifier(column)} = ${value}`;
    });
    const status = options.statusIs !== undefined ? ` and (status = $${setParameters + keys.length + 1}) is true` : '';
    return `update ${identifier(table)} set ${set.join(', ')}${whereText(keys, setParameters)}${status}${options.returningAll ? ' returning *' : ''}`;
  });
  return compiledQuery(text, parameters);
}

interface RawTemplate {
  sqlFragments: readonly string[];
  parameters: ReadonlyArray<{ value: unknown }>;
}

/** The fragments and values of a `sql\`…\`` template whose every parameter is a plain value, else null. */
function plainTemplate(expression: unknown): RawTemplate | null {
  const node = (expression as { toOperationNode(): { kind: string } }).toOperationNode() as { kind: string; sqlFragments?: readonly string[]; parameters?: ReadonlyArray<{ kind: string; immediate?: boolean; value: unknown }> };
  if (node.kind !== 'RawNode' || !node.sqlFragments || !node.parameters) return null;
  // Kysely writes one parameter after each fragment but the last.
  if (node.parameters.length !== node.sqlFragments.length - 1) return null;
  for (const parameter of node.parameters) if (parameter.kind !== 'ValueNode' || parameter.immediate) return null;
  return { sqlFragments: node.sqlFragments, parameters: node.parameters };
}

/** ` where "a" = $offset+1 and "b" = $offset+2`. */
const whereText = (keys: Keys, offset: number) => (keys.length === 0 ? '' : ` where ${keys.map(([column], i) => `${identifier(column)} = $${offset + i + 1}`).join(' and ')}`);

/** The status guard of `updateByKeysQuery`, as a Kysely expression (the builder's fallback, and the tests). */
export const statusIsTrue = (status: string) => sql<boolean>`(status = ${status}) is true`;
