import { sql, type Compilable, type CompiledQuery, type Expression, type Selectable } from 'kysely';
import { compiledQuery, identifier, isExpression, PrecompiledQuery, TextCache } from './kysely-text.ts';
import type { Database } from './schema.ts';
import type { Executor } from './transaction.ts';
import { readRows } from './write-batch.ts';

/**
 * The hot reads and updates of one row by its key, compiled without building and walking Kysely's
 * operation tree for each request (as insert-query.ts does for inserts):
 *
 * - `select * from "t" where "a" = $1 and "b" = $2[ for update]`, what `selectFrom(t).selectAll()
 *   .where(a, '=', …).where(b, '=', …)[.forUpdate()]` compiles to;
 * - `update "t" set "x" = $1, … where "a" = $n and "b" = $n+1[ and ("status" = $m) is true …][ returning *]`,
 *   what `updateTable(t).set(patch).where(…)[.where(sql\`(${sql.ref(c)} = ${v}) is true\`)…][.returningAll()]`
 *   compiles to.
 *
 * Character for character (the group committer reads these texts, src/db/group-commit-sql.ts, and
 * the tests compare with Kysely's): a text is kept per table, columns and options (each name in the
 * key with its length first, so no two lists of names share a key). A statement holding a Kysely
 * expression other than a plain template (see `compileUpdateByKeys`; `eb(…)`, a subquery) goes
 * through Kysely.
 */

type Table = keyof Database & string;

/** Equalities, in the order of the WHERE clause: `[["merchant_account_id", m], ["id", id]]` (plain column names: no table prefix). */
export type Keys = ReadonlyArray<readonly [column: string, value: unknown]>;

export interface SelectOptions {
  /** `for update`: the row stays locked until the transaction ends. */
  forUpdate?: boolean;
}

/** `select * from table where k1 = $1 and …[ for update]`. */
export function selectByKeysQuery<T extends Table>(
  db: Executor,
  table: T,
  keys: Keys,
  options: SelectOptions = {},
): PrecompiledQuery<Selectable<Database[T]>> {
  return new PrecompiledQuery(db, compileSelectByKeys(table, keys, options));
}

/**
 * The row of `table` with these keys, or undefined. A locking read (`forUpdate`, inside a
 * transaction) runs as it is; concurrent plain reads may share one statement (src/db/group-commit.ts).
 */
export async function rowByKeys<T extends Table>(
  db: Executor,
  table: T,
  keys: Keys,
  options: SelectOptions = {},
): Promise<Selectable<Database[T]> | undefined> {
  const query = selectByKeysQuery(db, table, keys, options);
  return (options.forUpdate ? await query.execute() : await readRows(db, query))[0];
}

export interface UpdateOptions {
  /**
   * More conditions after the keys, each a `sql\`…\`` template such as `(status = ${s}) is true`
   * (written so that the row is still found by its key alone), joined with `and` as Kysely's
   * chained `where`s are.
   */
  conditions?: ReadonlyArray<Expression<unknown>>;
  returningAll?: boolean;
}

/** A statement to batch (`compile()`, write-batch.ts) or run alone (`execute()`). */
export type Statement<R> = Compilable<R> & { execute(): Promise<unknown[]> };

/** `update table set … where k1 = $n and …`; Kysely's own builder when an expression is not a plain template. */
export function updateByKeysQuery<R = never>(
  db: Executor,
  table: Table,
  patch: object,
  keys: Keys,
  options: UpdateOptions = {},
): Statement<R> {
  const compiled = compileUpdateByKeys(table, patch as Record<string, unknown>, keys, options);
  if (compiled) return new PrecompiledQuery<R>(db, compiled as CompiledQuery<R>);
  let query = db.updateTable(table).set(patch as never);
  for (const [column, value] of keys) query = query.where(column as never, '=', value as never);
  for (const condition of options.conditions ?? []) query = query.where(condition as never);
  return (options.returningAll ? query.returningAll() : query) as unknown as Statement<R>;
}

/** `(column = value) is true`: a guard that leaves the row found by its key alone (for `conditions`). */
export const columnIs = (column: string, value: unknown) => sql<boolean>`(${sql.ref(column)} = ${value}) is true`;

/** `column + amount`: a value moved relative to the stored row (for a patch). */
export const columnPlus = (column: string, amount: number) => sql<number>`${sql.ref(column)} + ${amount}`;

const texts = new TextCache();

/** Pure (exported for tests). */
export function compileSelectByKeys(table: string, keys: Keys, options: SelectOptions = {}): CompiledQuery<any> {
  const parameters: unknown[] = [];
  const key = `${options.forUpdate ? 'S' : 's'}${table.length}:${table}${keysKey(keys, parameters)}`;
  return compiledQuery(
    texts.get(
      key,
      () =>
        `select * from ${identifier(table)}${whereClause(keyEqualities(keys, placeholders(0)))}${options.forUpdate ? ' for update' : ''}`,
    ),
    parameters,
  );
}

/**
 * Pure: the compiled update, or null when an expression (a value of the patch, a condition) is not
 * a plain template (exported for tests). A plain template is a `sql\`…\`` whose parameters are
 * values or references to a column (`sql.ref(c)`): the capture limit read from the account's
 * settings, an amount added to the stored one, a guard. It is written as Kysely writes it: its
 * fragments with `$n` for a value and the quoted name for a column between them.
 */
export function compileUpdateByKeys(
  table: string,
  patch: Record<string, unknown>,
  keys: Keys,
  options: UpdateOptions = {},
): CompiledQuery<any> | null {
  const parameters: unknown[] = [];
  let key = `u${options.returningAll ? 'r' : ''}${table.length}:${table}`;
  // Per column set: null for a value, else its template.
  const columns: string[] = [];
  const templates: Array<Template | null> = [];
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
    const template = plainTemplate(value);
    if (!template) return null;
    templates.push(template);
    key += `=${templateKey(template, parameters)}`;
  }
  // Kysely refuses an update that sets nothing; so does the caller then.
  if (columns.length === 0) return null;
  const setParameters = parameters.length;
  key += `;${keysKey(keys, parameters)}`;
  const conditions: Template[] = [];
  for (const condition of options.conditions ?? []) {
    const template = plainTemplate(condition);
    if (!template) return null;
    conditions.push(template);
    key += `&${templateKey(template, parameters)}`;
  }
  const text = texts.get(key, () => {
    const setNext = placeholders(0);
    const set = columns.map(
      (column, i) => `${identifier(column)} = ${templates[i] ? templateText(templates[i], setNext) : setNext()}`,
    );
    const whereNext = placeholders(setParameters);
    const where = keyEqualities(keys, whereNext).concat(
      conditions.map((template) => templateText(template, whereNext)),
    );
    return `update ${identifier(table)} set ${set.join(', ')}${whereClause(where)}${options.returningAll ? ' returning *' : ''}`;
  });
  return compiledQuery(text, parameters);
}

/** A `sql\`…\`` template's fragments, and between each two a value (`$n`) or a column's name. */
interface Template {
  fragments: readonly string[];
  parts: ReadonlyArray<{ value: unknown } | { column: string }>;
}

type Node = {
  kind: string;
  immediate?: boolean;
  value?: unknown;
  table?: unknown;
  column?: Node;
  name?: string;
  sqlFragments?: readonly string[];
  parameters?: readonly Node[];
};

/** The fragments and parts of a plain template, else null. */
function plainTemplate(expression: unknown): Template | null {
  const node = (expression as { toOperationNode(): Node }).toOperationNode();
  if (node.kind !== 'RawNode' || !node.sqlFragments || !node.parameters) return null;
  // Kysely writes one parameter after each fragment but the last.
  if (node.parameters.length !== node.sqlFragments.length - 1) return null;
  const parts: Template['parts'][number][] = [];
  for (const parameter of node.parameters) {
    if (parameter.kind === 'ValueNode' && !parameter.immediate) parts.push({ value: parameter.value });
    else {
      const column = plainColumn(parameter);
      if (column === null) return null;
      parts.push({ column });
    }
  }
  return { fragments: node.sqlFragments, parts };
}

/** The name of `sql.ref(column)` (a raw node around a reference to a column of no named table), else null. */
function plainColumn(node: Node): string | null {
  if (
    node.kind === 'RawNode' &&
    node.sqlFragments?.length === 2 &&
    node.sqlFragments[0] === '' &&
    node.sqlFragments[1] === '' &&
    node.parameters?.length === 1
  )
    return plainColumn(node.parameters[0]!);
  if (
    node.kind === 'ReferenceNode' &&
    node.table === undefined &&
    node.column?.kind === 'ColumnNode' &&
    node.column.column?.kind === 'IdentifierNode' &&
    typeof node.column.column.name === 'string'
  )
    return node.column.column.name;
  return null;
}

/** What the template's text depends on, for the cache's key; its values go to `parameters`. */
function templateKey(template: Template, parameters: unknown[]): string {
  let key = '';
  template.fragments.forEach((fragment, i) => {
    key += `${fragment.length}:${fragment}`;
    const part = template.parts[i];
    if (part === undefined) return;
    if ('column' in part) key += `c${part.column.length}:${part.column}`;
    else {
      key += 'v';
      parameters.push(part.value);
    }
  });
  return key;
}

/** Kysely's visitRaw: each fragment, then the next part (a value's placeholder, a column's name). */
function templateText(template: Template, next: () => string): string {
  let text = '';
  template.fragments.forEach((fragment, i) => {
    text += fragment;
    const part = template.parts[i];
    if (part !== undefined) text += 'column' in part ? identifier(part.column) : next();
  });
  return text;
}

/** The keys' part of a cache key (each name with its length first); their values go to `parameters`. */
function keysKey(keys: Keys, parameters: unknown[]): string {
  let key = '';
  for (const [column, value] of keys) {
    key += `,${column.length}:${column}`;
    parameters.push(value);
  }
  return key;
}

/** `$from+1`, `$from+2`, … one per call. */
function placeholders(from: number): () => string {
  let n = from;
  return () => `$${++n}`;
}

/** `"a" = $n` for each key, numbered by `next`. */
const keyEqualities = (keys: Keys, next: () => string) => keys.map(([column]) => `${identifier(column)} = ${next()}`);

/** ` where c1 and c2 …`, or nothing without a condition. */
const whereClause = (conditions: string[]) => (conditions.length === 0 ? '' : ` where ${conditions.join(' and ')}`);
