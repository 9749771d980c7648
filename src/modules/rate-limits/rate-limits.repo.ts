import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';

/** Counts one request in a fixed window and returns the window's count, atomically on every process. */
export async function countHit(db: Executor, bucket: string, windowStart: Date, expiresAt: Date): Promise<number> {
  const result = await sql<{ count: number }>`
    INSERT INTO rate_limit_windows (bucket, window_start, count, expires_at)
    VALUES (${bucket}, ${windowStart}, 1, ${expiresAt})
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
    RETURNING count`.execute(db);
  return Number(result.rows[0]!.count);
}

export async function purgeExpiredWindows(db: Executor, now: Date, batch = 10_000): Promise<number> {
  const result = await db
    .deleteFrom('rate_limit_windows')
    .where(({ eb, selectFrom }: any) =>
      eb(
        eb.refTuple('bucket', 'window_start'),
        'in',
        selectFrom('rate_limit_windows').select(['bucket', 'window_start']).where('expires_at', '<', now).limit(batch),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
