/**
 * A PostgreSQL array literal (`{"a","b\"c",NULL}`) of one parameter of a grouped statement
 * (src/db/group-commit.ts), built in one pass. The driver would build the same text from a
 * JavaScript array, but escapes each element with two regular-expression passes and formats dates
 * field by field; a grouped statement sends every column of every member this way.
 *
 * `type` is the element type PostgreSQL gave the parameter. Null when a value is not one this
 * builds exactly as the driver would (a date for a column without time zone, which the driver
 * writes in the process's local time; an object for a column that is not JSON; a nested array):
 * the caller then hands the driver the JavaScript array.
 */
export function arrayLiteral(values: readonly unknown[], type: string): string | null {
  const json = type === 'json' || type === 'jsonb';
  const zoned = type === 'timestamp with time zone' || type === 'timestamptz';
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const value = values[i];
    if (value === null) out += 'NULL';
    else if (typeof value === 'string') out += quoted(value);
    else if (typeof value === 'number' || typeof value === 'bigint') out += quoted(String(value));
    else if (typeof value === 'boolean') out += value ? '"true"' : '"false"';
    else if (value instanceof Date) {
      // Any spelling of the instant will do for a zoned column; an invalid date is the driver's to refuse.
      if (!zoned || Number.isNaN(value.getTime())) return null;
      out += quoted(value.toISOString());
    } else if (Buffer.isBuffer(value)) out += `\\\\x${value.toString('hex')}`;
    else if (json && typeof value === 'object' && !Array.isArray(value)) out += quoted(JSON.stringify(value));
    else return null;
  }
  return `${out}}`;
}

const SPECIAL = /[\\"]/;

/**
 * A double-quoted array element: backslashes and double quotes escaped with a backslash. Two
 * replacements by plain strings are faster than one by `\\$&` (V8 has a fast path for them), and
 * most elements (ids, codes) need neither.
 */
function quoted(text: string): string {
  return SPECIAL.test(text) ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${text}"`;
}
