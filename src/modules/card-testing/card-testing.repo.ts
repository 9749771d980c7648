import { sql } from 'kysely';
import type { CardTestingThrottleRow } from '../../db/schema-card-testing.ts';
import type { Executor } from '../../db/transaction.ts';
import '../../db/schema-card-testing.ts';

/**
 * Claims the throttle of a source: writes the row unless a throttle of that source is still on.
 * `claimed` is true for the one statement that wrote it (the unique key serializes processes racing
 * for it); otherwise the live row comes back, so the caller learns its end.
 */
export async function claimThrottle(
  db: Executor,
  row: CardTestingThrottleRow,
): Promise<{ claimed: boolean; row: CardTestingThrottleRow }> {
  const written = await db
    .insertInto('card_testing_throttles')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['merchant_account_id', 'source_mac'])
        .doUpdateSet({
          source_type: sql`excluded.source_type`,
          opened_at: sql`excluded.opened_at`,
          throttled_until: sql`excluded.throttled_until`,
          incident_id: sql`excluded.incident_id`,
        })
        .where('card_testing_throttles.throttled_until', '<=', row.opened_at),
    )
    .returningAll()
    .executeTakeFirst();
  if (written) return { claimed: true, row: written };
  const live = await db
    .selectFrom('card_testing_throttles')
    .selectAll()
    .where('merchant_account_id', '=', row.merchant_account_id)
    .where('source_mac', '=', row.source_mac)
    .executeTakeFirstOrThrow();
  return { claimed: false, row: live };
}
