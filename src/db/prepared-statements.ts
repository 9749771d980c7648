import pg from 'pg';
import { shapedQuery } from './row-shapes.ts';

/**
 * Named prepared statements for the `pg` driver. Kysely sends every query as an unnamed
 * statement, so PostgreSQL parses and plans it each time; on the transaction hot path planning
 * cost more than running (0.2-0.3 ms a statement against tables with many indexes). A query text
 * seen `HOT_AFTER` times gets a name: each connection then parses it once and binds it after that
 * (PostgreSQL keeps a generic plan once it is as good as the custom ones).
 *
 * Bounded: at most `MAX_NAMED` texts get a name per process (texts built from a variable number of
 * parameters, such as long IN lists, stay unnamed once the budget is spent), so the memory a
 * connection holds on the server stays bounded. A prepared `SELECT *` fails with "cached plan must
 * not change result type" if a migration alters its table while this process runs: the text is then
 * never named again, and the failing query is retried unnamed once when it ran outside a
 * transaction (inside one, the transaction's retry in `withTransaction` runs it again).
 */

const HOT_AFTER = 3;
const MAX_NAMED = 400;
const MAX_TEXT = 8_000;

const seen = new Map<string, number>();
const names = new Map<string, string>();
const banned = new Set<string>();
let counter = 0;

/**
 * ON CONFLICT naming a partial unique index by its predicate: with the predicate's value as a
 * parameter, a generic plan cannot match the index (42P10), so such a text is never named.
 */
const PARTIAL_CONFLICT = /on conflict \([^)]*\) where /i;

function nameFor(text: string): string | null {
  const existing = names.get(text);
  if (existing) return existing;
  if (banned.has(text) || names.size >= MAX_NAMED || text.length > MAX_TEXT || PARTIAL_CONFLICT.test(text)) return null;
  const count = (seen.get(text) ?? 0) + 1;
  if (count < HOT_AFTER) {
    // Forget counts now and then, so one-off texts do not pile up.
    if (seen.size >= 10_000) seen.clear();
    seen.set(text, count);
    return null;
  }
  seen.delete(text);
  const name = `svc_${++counter}`;
  names.set(text, name);
  return name;
}

/** "cached plan must not change result type" (SQLSTATE 0A000, feature not supported). */
export function isCachedPlanChange(error: unknown): boolean {
  return (
    (error as { code?: string } | null)?.code === '0A000' &&
    /cached plan must not change result type/.test((error as Error).message)
  );
}

/** A `pg` client that names hot query texts (see above); everything else goes through unchanged. */
export class PreparingClient extends pg.Client {
  // pg's overloads are many; Kysely calls query(text, values), which is the one handled here.
  override query(...args: any[]): any {
    const [text, values] = args as [unknown, unknown];
    // Without parameters pg uses the simple protocol, which also runs several statements in one
    // text (a prepared statement cannot); there is no plan worth keeping for those anyway.
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || args.length !== 2)
      return (super.query as (...a: any[]) => any)(...args);
    const name = nameFor(text);
    if (!name) return super.query(text, values);
    // Rows built from the statement's remembered columns (row-shapes.ts).
    const run = () =>
      new Promise<pg.QueryResult>((resolve, reject) =>
        super.query(shapedQuery({ name, text, values }, (error, result) => (error ? reject(error) : resolve(result)))),
      );
    return run().catch((error: unknown) => {
      if (!isCachedPlanChange(error)) throw error;
      banned.add(text);
      names.delete(text);
      // Outside a transaction (pg's private ready-for-query status 'I') the query can simply run again.
      if ((this as unknown as { _txStatus?: string })._txStatus === 'I') return super.query(text, values);
      throw error;
    });
  }
}
