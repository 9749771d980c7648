import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './transaction.ts';

/**
 * Several writes in one database round trip: `WITH w1 AS (<write 1>), w2 AS (<write 2>) <last
 * write>`. PostgreSQL runs every data-modifying statement of a WITH clause to completion, in one
 * snapshot, as one statement: all happen or none. Foreign keys between them are checked at the end
 * of the statement, so a row may reference a row inserted by a sibling.
 *
 * For writes whose results the caller does not read (the last one's rows are returned). Two writes
 * must not touch the same row, and a write cannot see a sibling's rows (one snapshot). A write
 * whose text holds a literal or a WITH clause of its own makes them all run one by one instead
 * (renumbering parameters could otherwise touch the literal; PostgreSQL refuses nested
 * data-modifying WITHs).
 */
export async function runWrites<R = unknown>(db: Executor, writes: Array<Compilable<unknown> | CompiledQuery<unknown>>): Promise<R[]> {
  const compiled = writes.map((w) => ('compile' in w ? w.compile() : w));
  if (compiled.length === 0) return [];
  if (!compiled.every((q) => canCombine(q.sql))) {
    let rows: R[] = [];
    for (const q of compiled) rows = (await db.executeQuery<R>(q as CompiledQuery<R>)).rows;
    return rows;
  }
  return (await db.executeQuery<R>(combine(compiled))).rows;
}

const canCombine = (text: string) => !text.includes("'") && !text.includes('$$') && !/^\s*with\b/i.test(text);

/** Pure: the combined statement (exported for tests). */
export function combine(queries: ReadonlyArray<CompiledQuery<unknown>>): CompiledQuery<any> {
  if (queries.length === 1) return queries[0]!;
  const parameters: unknown[] = [];
  const parts = queries.map((q) => {
    const offset = parameters.length;
    parameters.push(...q.parameters);
    return offset === 0 ? q.sql : q.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = parts.pop()!;
  return CompiledQuery.raw(`with ${parts.map((p, i) => `w${i + 1} as (${p})`).join(', ')} ${last}`, parameters);
}
