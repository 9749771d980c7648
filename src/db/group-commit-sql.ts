/**
 * Pure SQL rewriting for group commit (src/db/group-commit.ts): one write text that a request runs
 * with its own parameters becomes one statement that runs it for many requests at once, each
 * parameter `$k` turned into an array of every member's values, unnested into rows:
 *
 *   insert into "t" ("a", "b") values ($1, $2)          update "t" set "a" = $1 where "id" = $2
 *   →                                                   →
 *   insert into "t" ("a", "b")                          update "t" set "a" = "v"."p1"
 *     select "v"."p1", "v"."p2"                           from unnest($1::int[], $2::text[]) as "v" ("p1", "p2")
 *     from unnest($1::int[], $2::text[]) as "v" (…)       where "id" = "v"."p2" and "t"."id" = any((select $2::text[])::text[])
 *
 * Only the shapes Kysely produces for our writes are understood: a single-table INSERT … VALUES
 * (several rows of one template allowed) or UPDATE … SET … WHERE without a FROM, no literals, no
 * nested WITH. Anything else is `null` and its members run one by one. The `= any(array)` copies of
 * the WHERE's equalities let PostgreSQL find the updated rows through their index (a join with an
 * unnest of unknown size could otherwise be planned as a scan: on a table of a few thousand rows it
 * was). Each copy reads its array through a sub-select, `= any((select $2::text[])::text[])`, so
 * that no plan sees the values: a custom plan (a prepared statement's first executions) on
 * statistics taken while a merchant account had no rows expected one row for it, kept only the
 * account as the index condition and filtered the ids, and so read the account's whole history for
 * every statement. With the values unseen it uses the whole key, as a generic plan does
 * (decision 0106).
 */

/** One write text, understood: how to run it for many members. */
export interface WriteShape {
  /** Parameters one member passes to this text, per row of a multi-row VALUES (1 otherwise). */
  rows: number;
  /** Parameter numbers (1-based, in the member's own text) of each row, in template order. */
  rowParams: number[][];
  /**
   * The grouped text with `$@i` standing for the i-th (0-based) array parameter of this write and
   * `$&` for the row source its arrays are unnested by (see `groupedText`).
   */
  template: string;
  /** How many arrays the template takes (the length of each rowParams entry). */
  arrays: number;
  /**
   * An UPDATE: it must touch one row per member, which the grouped statement checks by counting
   * its returned rows (`returning 1` is added when it returned nothing): two members updating the
   * same row would otherwise update it once, silently.
   */
  update: boolean;
}

const IDENT = '"[^"]+"(?:\\."[^"]+")?';

/** Splits `text` at `separator` (lowercase, surrounded by spaces) where it is outside parentheses. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  const lower = text.toLowerCase();
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    if (quoted) continue;
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && lower.startsWith(separator, i)) {
      parts.push(text.slice(start, i));
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Index of the first top-level occurrence of `word` (with its spaces), or -1. */
function indexTopLevel(text: string, word: string): number {
  const parts = splitTopLevel(text, word);
  return parts.length === 1 ? -1 : parts[0]!.length;
}

/** The parameter numbers of `text` in order of first appearance. */
function paramsOf(text: string): number[] {
  const seen: number[] = [];
  for (const match of text.matchAll(/\$(\d+)/g)) {
    const n = Number(match[1]);
    if (!seen.includes(n)) seen.push(n);
  }
  return seen;
}

/** `text` with each `$k` replaced by `"v"."p<i+1>"`, i the position of k in `order`. */
function toColumns(text: string, order: number[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => `"v"."p${order.indexOf(Number(n)) + 1}"`);
}

/** The tuples of a VALUES list (`($1, $2), ($3, $4)`), or null if anything else follows them. */
function tuples(text: string): { rows: string[]; rest: string } | null {
  const rows: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] !== '(') return null;
    let depth = 0;
    let j = i;
    for (; j < text.length; j++) {
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) break;
    }
    if (j >= text.length) return null;
    rows.push(text.slice(i + 1, j));
    i = j + 1;
    if (text.startsWith(', ', i)) {
      i += 2;
      continue;
    }
    return { rows, rest: text.slice(i) };
  }
}

/** `text` understood as a groupable write, or null. */
export function writeShape(text: string): WriteShape | null {
  if (text.includes("'") || text.includes('$$') || text.includes(';') || /^\s*with\b/i.test(text)) return null;
  const insert = new RegExp(`^insert into (${IDENT}) (\\([^)]*\\)) values (.*)$`, 'is').exec(text);
  if (insert) return insertShape(insert[1]!, insert[2]!, insert[3]!);
  const update = new RegExp(`^update (${IDENT}) set (.*)$`, 'is').exec(text);
  if (update) return updateShape(update[1]!, update[2]!);
  return null;
}

function insertShape(table: string, columns: string, values: string): WriteShape | null {
  const parsed = tuples(values);
  if (!parsed || parsed.rows.length === 0) return null;
  const rest = parsed.rest;
  if (rest !== '' && !/^ (on conflict|returning) /i.test(rest)) return null;
  const rowParams = parsed.rows.map(paramsOf);
  const first = rowParams[0]!;
  if (first.length === 0) return null;
  const template = toColumns(parsed.rows[0]!, first);
  // Every row must be the first one with other parameters (a multi-row insert of one template).
  for (let r = 1; r < parsed.rows.length; r++) {
    if (rowParams[r]!.length !== first.length || toColumns(parsed.rows[r]!, rowParams[r]!) !== template) return null;
  }
  const from = `from $& as "v" (${first.map((_, i) => `"p${i + 1}"`).join(', ')})`;
  return {
    rows: parsed.rows.length,
    rowParams,
    arrays: first.length,
    update: false,
    template: `insert into ${table} ${columns} select ${template} ${from}${rest}`,
  };
}

function updateShape(table: string, afterSet: string): WriteShape | null {
  const returningAt = indexTopLevel(afterSet, ' returning ');
  const body = returningAt < 0 ? afterSet : afterSet.slice(0, returningAt);
  let returning = returningAt < 0 ? '' : afterSet.slice(returningAt);
  const whereAt = indexTopLevel(body, ' where ');
  if (whereAt < 0 || indexTopLevel(body, ' from ') >= 0) return null;
  const set = body.slice(0, whereAt);
  const where = body.slice(whereAt + ' where '.length);
  const order = paramsOf(body + returning);
  if (order.length === 0) return null;
  // `returning *` would return the unnested columns too.
  if (/^ returning \*$/i.test(returning)) returning = ` returning ${table}.*`;
  if (returning === '') returning = ' returning 1';
  const conditions = splitTopLevel(where, ' and ');
  const indexed: string[] = [];
  for (const condition of conditions) {
    const equal = /^("[^"]+") = \$(\d+)$/.exec(condition.trim());
    if (equal) indexed.push(`${table}.${equal[1]} = any($@${order.indexOf(Number(equal[2]))})`);
  }
  if (indexed.length === 0) return null;
  const from = ` from $& as "v" (${order.map((_, i) => `"p${i + 1}"`).join(', ')})`;
  const template = `update ${table} set ${toColumns(set, order)}${from} where ${toColumns(where, order)} and ${indexed.join(' and ')}${toColumns(returning, order)}`;
  return { rows: 1, rowParams: [order], arrays: order.length, update: true, template };
}

/**
 * A read of rows by equalities only (`select * from "t" where "a" = $1 and "b" = $2`), or a delete
 * of them returning what it took (`delete from "t" where … returning "x"`), as one statement for
 * many members: their parameters unnested with ordinality and joined to the table; each row carries
 * `svc_member`, the 1-based position of the member it belongs to. Members reading the same row each
 * get it; members deleting the same row: one of them gets it, as when their deletes race.
 */
export function readShape(text: string): WriteShape | null {
  if (text.includes("'") || text.includes('$$') || text.includes(';')) return null;
  const select = new RegExp(`^select \\* from (${IDENT}) where (.*)$`, 'is').exec(text);
  const remove = select ? null : new RegExp(`^delete from (${IDENT}) where (.*?) (returning .*)$`, 'is').exec(text);
  const match = select ?? remove;
  if (!match) return null;
  const table = match[1]!;
  const where = match[2]!;
  const order = paramsOf(where);
  if (order.length === 0 || (remove && /\$\d/.test(remove[3]!))) return null;
  const joins: string[] = [];
  const indexed: string[] = [];
  for (const condition of splitTopLevel(where, ' and ')) {
    const equal = /^("[^"]+") = \$(\d+)$/.exec(condition.trim());
    if (!equal) return null;
    const i = order.indexOf(Number(equal[2]));
    joins.push(`${table}.${equal[1]} = "v"."p${i + 1}"`);
    indexed.push(`${table}.${equal[1]} = any($@${i})`);
  }
  const columns = [...order.map((_, i) => `"p${i + 1}"`), '"svc_member"'];
  const from = `$& with ordinality as "v" (${columns.join(', ')})`;
  const template = select
    ? `select ${table}.*, "v"."svc_member" from ${from} join ${table} on ${joins.join(' and ')} where ${indexed.join(' and ')}`
    : `delete from ${table} using ${from} where ${joins.join(' and ')} and ${indexed.join(' and ')} ${remove![3]!}, "v"."svc_member"`;
  return { rows: 1, rowParams: [order], arrays: order.length, update: false, template };
}

/**
 * Which arrays of `shape` travel as one JSON array (`jsonRows`) rather than as a PostgreSQL array:
 * the `jsonb` ones the statement only reads values from. A PostgreSQL array literal must escape
 * every quote and backslash of each JSON text (the driver's `escapeElement`, about 5 % of an
 * authorization's server CPU, and a third more bytes on the wire); JSON texts joined into a JSON
 * array need no escaping. An array compared with `= any(...)` keeps its PostgreSQL type.
 */
export function jsonArrays(shape: WriteShape, types: readonly string[]): boolean[] {
  return types.map((type, i) => type === 'jsonb' && !new RegExp(`\\$@${i}(?!\\d)`).test(shape.template));
}

/**
 * The SQL text of `shape` with its arrays numbered from `offset + 1` and cast to `types` (one per
 * array: the element type PostgreSQL inferred for that parameter). The arrays marked in `json`
 * travel as JSON texts (`jsonRows`): each is unnested by the built-in `jsonb_array_elements`, and
 * each value read back as `-> 0` (SQL NULL travels as `[]`, a value `v` as `[v]`). Before any row
 * is read, one `svc_require` (migration 0018) checks that every such array holds one value per
 * row: the parameter after the arrays holds that count. A count that differs raises SV001 and
 * nothing is written (its members then run one by one); `rows from` would otherwise pad the short
 * ones with NULLs and shift values between rows.
 *
 * The unnesting was first a SQL function of ours (`svc_json_rows`, migration 0035, no longer
 * used): PostgreSQL cannot inline a set-returning SQL function inside `rows from`, so it planned
 * its body again at every call, about 13 calls per grouped insert and as many per answer
 * (decision 0099).
 */
export function groupedText(
  shape: WriteShape,
  offset: number,
  types: readonly string[],
  json: readonly boolean[] = [],
): string {
  const array = (n: number) => `$${offset + n + 1}::${types[n]}[]`;
  const jsonParameter = (n: number) => `$${offset + n + 1}::jsonb`;
  const jsonAt = types.map((_, n) => n).filter((n) => json[n]);
  let source: string;
  let template = shape.template;
  if (jsonAt.length > 0) {
    const count = `$${offset + shape.arrays + 1}::bigint`;
    const counted = jsonAt.map((n) => `jsonb_array_length(${jsonParameter(n)}) = ${count}`).join(' and ');
    const first = jsonAt[0]!;
    source = `rows from (${types
      .map((_, n) => {
        if (!json[n]) return `unnest(${array(n)})`;
        const rows =
          n === first
            ? `case when svc_require(${counted}, 'grouped JSON values are not one per row') then ${jsonParameter(n)} end`
            : jsonParameter(n);
        return `jsonb_array_elements(${rows})`;
      })
      .join(', ')})`;
    for (const n of jsonAt)
      template = template.replace(new RegExp(`"v"\\."p${n + 1}"(?!\\d)`, 'g'), `("v"."p${n + 1}" -> 0)`);
  } else {
    source = `unnest(${types.map((_, n) => array(n)).join(', ')})`;
  }
  // A key's copy reads its array through a sub-select: no plan sees its values (see the top).
  return template
    .replace('$&', () => source)
    .replace(/\$@(\d+)/g, (_, n: string) => `(select ${array(Number(n))})::${types[Number(n)]}[]`);
}

/**
 * `values` (JSON texts or values, or null) as one parameter of a grouped statement
 * (`groupedText`): a JSON array with each value wrapped in an array of its own and SQL NULL as an
 * empty array, so that a JSON `null` (`[null]`) and a missing value (`[]`) stay apart and `-> 0`
 * reads each back. A string is taken as the JSON text of the value, as the driver sends it to a
 * `jsonb` parameter: it must be JSON text (every writer passes `JSON.stringify`'s); a string that
 * is several JSON values (`1],[2`) changes the array's length, which the statement refuses.
 */
export function jsonRows(values: readonly unknown[]): string | null {
  let text = '[';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === undefined) return null;
    if (i > 0) text += ',';
    text += value === null ? '[]' : `[${typeof value === 'string' ? value : JSON.stringify(value)}]`;
  }
  return `${text}]`;
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * `values` as the text of a PostgreSQL array literal (`{"a","b\\"c",NULL}`) for a parameter of
 * element type `type`: what `pg` writes for a JavaScript array (every element quoted, backslashes
 * and double quotes escaped), without its per-element work, which was about 5 % of an
 * authorization's server CPU (`escapeElement`'s two regular-expression replaces, `prepareValue`,
 * `dateToString`). A `timestamptz` element that is a Date travels as its ISO text (the same
 * instant; `pg` writes local time with its offset). JSON values that are not text are stringified,
 * as before. Null when an element is of another kind (a Buffer, a Date of another type, an object):
 * the caller then hands `pg` the array itself.
 */
export function arrayLiteral(values: readonly unknown[], type: string): string | null {
  const json = type === 'json' || type === 'jsonb';
  // As PostgreSQL names the type (`pg_prepared_statements.parameter_types`), or its short name.
  const timestamp = type === 'timestamp with time zone' || type === 'timestamptz';
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) text += ',';
    if (value === null) {
      text += 'NULL';
      continue;
    }
    let element: string;
    switch (typeof value) {
      case 'string':
        element = value;
        break;
      case 'number':
      case 'boolean':
      case 'bigint':
        element = String(value);
        break;
      case 'object':
        if (json) element = JSON.stringify(value);
        else if (timestamp && value instanceof Date && !Number.isNaN(value.getTime())) element = value.toISOString();
        else return null;
        break;
      default:
        return null;
    }
    text += NEEDS_ESCAPE.test(element) ? `"${element.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${element}"`;
  }
  return `${text}}`;
}

/**
 * The arrays `shape` takes for `members` (each member's parameters for this text): array i holds,
 * member after member and row after row, the value of the row's i-th parameter.
 */
export function groupedArrays(shape: WriteShape, members: ReadonlyArray<readonly unknown[]>): unknown[][] {
  const arrays: unknown[][] = Array.from({ length: shape.arrays }, () => []);
  for (const params of members) {
    for (const row of shape.rowParams) {
      for (let i = 0; i < row.length; i++) arrays[i]!.push(params[row[i]! - 1]);
    }
  }
  return arrays;
}
