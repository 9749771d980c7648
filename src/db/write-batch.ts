import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './executor.ts';

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
 * data-modifying WITHs). With `group`, on a pool that groups writes, they may be written together
 * with other requests' identical writes (src/db/group-commit.ts).
 */
export async function runWrites<R = unknown>(
  db: Executor,
  writes: Array<Compilable<unknown> | CompiledQuery<unknown>>,
  group?: GroupKey,
): Promise<R[]> {
  const compiled = writes.map((w) => ('compile' in w ? w.compile() : w));
  if (compiled.length === 0) return [];
  const combinable = compiled.every((q) => canCombine(q.sql));
  const runner = group && runners.get(db);
  if (runner && combinable) return runner.run<R>('writes', compiled, group!);
  if (!combinable) {
    let rows: R[] = [];
    for (const q of compiled) rows = (await db.executeQuery<R>(q as CompiledQuery<R>)).rows;
    return rows;
  }
  return (await db.executeQuery<R>(combine(compiled))).rows;
}

/**
 * Members of a group are told apart in the rows a grouped statement returns by `column` (the
 * primary key of the row the last write inserts, or of the guarded update's row), whose value for
 * this request is `value` (src/db/group-commit.ts).
 */
export interface GroupKey {
  column: string;
  value: unknown;
}

/** What runs grouped writes for a pool (src/db/group-commit.ts registers itself here). */
export interface GroupRunner {
  run<R>(kind: 'writes' | 'guarded' | 'reads', queries: CompiledQuery<unknown>[], key: GroupKey): Promise<R[]>;
  /** Grouped statements that committed, the members they wrote, and groups that fell back to one by one. */
  readonly stats: { statements: number; members: number; fallbacks: number };
}

const runners = new WeakMap<object, GroupRunner>();

/** Makes writes on `db` that name a GroupKey go through `runner` (a transaction is another object: never grouped). */
export function setGroupRunner(db: object, runner: GroupRunner): void {
  runners.set(db, runner);
}

/**
 * The rows of a read by equalities (`select * from t where a = $1 and b = $2`), or of a delete by
 * equalities returning what it took; on a pool that groups, concurrent requests' identical ones go
 * in one statement (src/db/group-commit.ts).
 */
export async function readRows<R>(db: Executor, query: Compilable<R>): Promise<R[]> {
  const runner = runners.get(db);
  const compiled = query.compile();
  if (!runner) return (await db.executeQuery<R>(compiled)).rows;
  return runner.run<R>('reads', [compiled], NO_KEY);
}

/** Reads need no key: each row names its member. */
const NO_KEY: GroupKey = { column: '', value: undefined };

/** The runner of `db`'s grouped writes, if any (tests read its statistics). */
export function groupRunnerOf(db: object): GroupRunner | undefined {
  return runners.get(db);
}

const canCombine = (text: string) => !text.includes("'") && !text.includes('$$') && !/^\s*with\b/i.test(text);

/** SQLSTATE of `svc_require` (migration 0018): the guarded update found no row, nothing was written. */
export const GUARD_FAILED = 'SV001';

/** The guarded update found no row: the statement wrote nothing. */
export class GuardFailed extends Error {
  constructor() {
    super('the row changed before the guarded update');
  }
}

/**
 * A guarded update and the writes that record it, all in one statement, so a caller outside any
 * database transaction gets all of them or none (no BEGIN/COMMIT round trips):
 * `WITH u AS (<update … RETURNING *>), w1 AS (<write 1>), … SELECT u.* …`. The update names the
 * state it expects in its WHERE; when it matches no row, `svc_require` raises and the statement
 * writes nothing: this throws GuardFailed. Null when the writes cannot be combined (see
 * `canCombine`): nothing ran, the caller takes its usual path. Otherwise the updated rows.
 */
export async function runGuardedWrites<R>(
  db: Executor,
  update: Compilable<R>,
  writes: Array<Compilable<unknown> | CompiledQuery<unknown>>,
  group?: GroupKey,
): Promise<R[] | null> {
  const compiled = [update.compile(), ...writes.map((w) => ('compile' in w ? w.compile() : w))];
  if (!compiled.every((q) => canCombine(q.sql))) return null;
  const runner = group && runners.get(db);
  // The runner throws GuardFailed itself when this member's update found no row.
  if (runner) return runner.run<R>('guarded', compiled, group!);
  try {
    return (await db.executeQuery<R>(guarded(compiled))).rows;
  } catch (error) {
    if ((error as { code?: string } | null)?.code === GUARD_FAILED) throw new GuardFailed();
    throw error;
  }
}

/** Pure: the guarded statement of `runGuardedWrites` (exported for tests). */
export function guarded(queries: ReadonlyArray<CompiledQuery<unknown>>): CompiledQuery<any> {
  const { parts, parameters } = renumbered(queries);
  const [update, ...rest] = parts;
  const ctes = [`u as (${update})`, ...rest.map((p, i) => `w${i + 1} as (${p})`)];
  // The guard is the outer side of a left join, so it is evaluated even when u is empty.
  return CompiledQuery.raw(
    `with ${ctes.join(', ')} select u.* from (values (svc_require(exists (select 1 from u), 'guarded update found no row'))) as guard (ok) left join u on true`,
    parameters,
  );
}

/** The texts of `queries` with their parameters numbered one after the other, and those parameters. */
function renumbered(queries: ReadonlyArray<CompiledQuery<unknown>>): { parts: string[]; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const parts = queries.map((q) => {
    const offset = parameters.length;
    parameters.push(...q.parameters);
    return offset === 0 ? q.sql : q.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  return { parts, parameters };
}

/** Pure: the combined statement (exported for tests). */
export function combine(queries: ReadonlyArray<CompiledQuery<unknown>>): CompiledQuery<any> {
  if (queries.length === 1) return queries[0]!;
  const { parts, parameters } = renumbered(queries);
  const last = parts.pop()!;
  return CompiledQuery.raw(`with ${parts.map((p, i) => `w${i + 1} as (${p})`).join(', ')} ${last}`, parameters);
}
