import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { CHANGE_CHANNEL } from '../../src/db/change-feed.ts';
import type { TestApp } from './build-test-app.ts';

/**
 * Resolves once the app's change feed (src/db/change-feed.ts) has handed its caches every
 * notification committed before the call. A cache write is invalidated at once by the writing
 * request and again when its notification arrives; on PostgreSQL that second one comes on the
 * feed's own connection, later, and on a busy host it can land after a request that loaded the
 * cache again, which then reads once more. Tests that count a request's statements call this
 * after their set-up's writes. PostgreSQL delivers notifications in the order their transactions
 * committed, so a marker sent now arrives after all of them.
 */
export async function changesDelivered(t: TestApp, timeoutMs = 10_000): Promise<void> {
  const cache = t.deps.readCaches.paymentServices;
  const marker = `barrier-${randomUUID()}`;
  const original = cache.invalidate;
  let timer: NodeJS.Timeout | undefined;
  try {
    const delivered = new Promise<void>((resolve) => {
      cache.invalidate = function (key: string) {
        original.call(this, key);
        if (key === marker) resolve();
      };
    });
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.deps.db);
    await sql`select pg_notify(${CHANGE_CHANNEL}, ${`${rows[0]!.schema}:payment_services:${marker}`})`.execute(
      t.deps.db,
    );
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the change feed did not deliver a notification within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    await Promise.race([delivered, timeout]);
  } finally {
    clearTimeout(timer);
    cache.invalidate = original;
  }
}
