import type { Compilable } from 'kysely';
import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { GuardFailed, runGuardedWrites, type GroupKey } from '../../db/write-batch.ts';
import { isRetryable, sqlState, SQLSTATE } from '../../errors/pg-errors.ts';

/**
 * Records a connector's answer in one guarded statement (src/db/write-batch.ts): `update` applies it
 * only if its row is still in the state the answer was asked in, and `writes` (rendered beforehand)
 * go with it. `render` turns the updated row into the response. Null when nothing was written (the
 * row moved, the writes cannot share a statement, or a deadlock): the caller takes its locked path.
 * `group`: the statement may be written together with other requests' identical ones
 * (src/db/group-commit.ts); its value must name every row the writes update (the idempotency
 * key's row below is another request's for every other member: a key has one request at a time).
 *
 * With an idempotency key the response is stored with the answer. Given `predicted` (the row the
 * update will leave, predicted-row.ts), the response is rendered from it beforehand and its sealed
 * copy is one more write of the same statement: one statement, as without a key. Otherwise the
 * statement runs in a transaction that also stores the response rendered from the stored row.
 */
export async function recordGuarded<R, T>(
  ctx: RequestContext,
  update: Compilable<R>,
  writes: Array<Compilable<unknown>>,
  render: (db: Executor, row: R) => Promise<T> | T,
  group?: GroupKey,
  predicted?: R,
): Promise<{ row: R; value: T } | null> {
  const run = async (executor: Executor, all: Array<Compilable<unknown>>, key?: GroupKey) => {
    const rows = await runGuardedWrites<R>(executor, update, all, key);
    if (rows === null) throw new GuardFailed();
    return rows[0]!;
  };
  try {
    const db = ctx.deps.db;
    const idempotency = ctx.idempotency;
    if (!idempotency) {
      const row = await run(db, writes, group);
      return { row, value: await render(db, row) };
    }
    if (predicted !== undefined) {
      const value = await render(db, predicted);
      const stored = await idempotency.recordWrite(db, ctx.successStatus, value);
      const row = await run(db, [...writes, stored.write], group);
      // Committed with the answer: the route sends exactly these bytes, as a replay will.
      idempotency.recorded = stored.recorded;
      return { row, value };
    }
    let row: R;
    const value = await withRequestTransaction(ctx, async (tx) => {
      row = await run(tx, writes);
      return render(tx, row);
    });
    return { row: row!, value };
  } catch (error) {
    // The statement wrote nothing: the locked path records the answer (and retries a deadlock).
    if (error instanceof GuardFailed || isRetryable(error)) return null;
    // A reference gone since it was read: the webhook outbox's subscriptions come from the process's
    // cache (src/db/read-cache.ts), which hears of a deletion elsewhere only when its notification
    // arrives. The locked path reads them again in its transaction.
    if (isForeignKeyViolation(error)) {
      ctx.deps.readCaches.webhookSubscriptions.invalidate(ctx.merchantAccountId);
      return null;
    }
    throw error;
  }
}

/** Also once withTransaction has translated it (the idempotent path). */
const isForeignKeyViolation = (error: unknown) =>
  sqlState(error) === SQLSTATE.foreignKeyViolation ||
  sqlState((error as { cause?: unknown } | null)?.cause) === SQLSTATE.foreignKeyViolation;

/**
 * A guarded update and the writes that go with it in one statement outside any database
 * transaction, for a step that stores no response (a reservation before a connector call). The
 * updated row, or null when nothing was written (the row moved, the writes cannot share a
 * statement, or a deadlock): the caller takes its locked path. `group` as for `recordGuarded`.
 */
export async function writeGuarded<R>(
  db: Executor,
  update: Compilable<R>,
  writes: Array<Compilable<unknown>>,
  group?: GroupKey,
): Promise<R | null> {
  try {
    const rows = await runGuardedWrites<R>(db, update, writes, group);
    return rows === null ? null : rows[0]!;
  } catch (error) {
    if (error instanceof GuardFailed || isRetryable(error)) return null;
    throw error;
  }
}
