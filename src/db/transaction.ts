import { isRetryable, translatePgError } from '../errors/pg-errors.ts';
import type { Db, Tx } from './executor.ts';

export type { Executor, Tx } from './executor.ts';

const MAX_ATTEMPTS = 3;

/**
 * Runs `fn` in one database transaction. Serialization failures and deadlocks are retried
 * (the whole function runs again, so it must not have side effects outside the database);
 * other driver errors are translated into AppErrors where their meaning is known.
 */
export async function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn);
    } catch (error) {
      if (attempt < MAX_ATTEMPTS && isRetryable(error)) continue;
      throw translatePgError(error);
    }
  }
}
