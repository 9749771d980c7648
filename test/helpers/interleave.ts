import type { DatabaseConnection } from 'kysely';
import type { TestApp } from './build-test-app.ts';

/**
 * Concurrent requests on PGlite, interleaved statement by statement as a PostgreSQL pool runs them.
 *
 * PGlite runs in this process and answers a statement without I/O, so a request made of
 * statements outside any transaction runs to its end in one turn of the event loop: 20 requests
 * "at once" run one after another, and a check-then-write race (a read, then an update that
 * trusts it) can never happen. Made to wait one turn before each statement, the requests take
 * turns between statements: one request's read and its write are separated by the others'
 * statements, as on a PostgreSQL pool. A database transaction still owns PGlite's one session
 * until it ends (src/db/pglite-dialect.ts), as a row lock would hold the others back.
 *
 * On PostgreSQL this changes nothing (its requests already interleave) and records nothing.
 */
export interface Interleaving {
  /** PGlite: the SQL of every statement since the start, in the order they ran. */
  statements: string[];
  restore(): void;
}

export async function interleaveStatements(t: TestApp): Promise<Interleaving> {
  const statements: string[] = [];
  if (t.deps.dbKind !== 'pglite') return { statements, restore: () => undefined };
  // The PGlite driver hands out one connection object: wrapping it reaches every statement.
  const connection = await t.deps.db.getExecutor().provideConnection(async (c) => c);
  const original = connection.executeQuery;
  connection.executeQuery = async function (this: DatabaseConnection, compiled) {
    await new Promise((resolve) => setImmediate(resolve));
    statements.push(compiled.sql);
    return original.call(this, compiled);
  } as DatabaseConnection['executeQuery'];
  return { statements, restore: () => void (connection.executeQuery = original) };
}
