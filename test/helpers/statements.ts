import type { CompiledQuery } from 'kysely';
import type { Db } from '../../src/db/client.ts';

/**
 * Records the statements the app sends through `db` outside a database transaction, exactly as
 * compiled (text and parameters): every query builder of `db` runs through its one executor.
 * For tests that look at what the server really asks (its plan), not at a query written in the test.
 */
export function recordStatements(db: Db): { statements: CompiledQuery[]; stop(): void } {
  const executor = db.getExecutor();
  const original = executor.executeQuery;
  const statements: CompiledQuery[] = [];
  executor.executeQuery = function (this: typeof executor, compiled, ...rest) {
    statements.push(compiled);
    return original.call(this, compiled, ...rest);
  } as typeof executor.executeQuery;
  return { statements, stop: () => void (executor.executeQuery = original) };
}
