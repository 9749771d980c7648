import type { Executor } from '../../db/transaction.ts';

/** The event's deduplication row; false when the same event was received before (a replay). */
export async function insertEventOnce(
  db: Executor,
  row: { merchant_account_id: string; payment_service_id: string; event_id: string; id: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('inbound_webhook_events')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_account_id', 'payment_service_id', 'event_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function recordActions(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  eventId: string,
  actions: Array<Record<string, unknown>>,
): Promise<void> {
  await db
    .updateTable('inbound_webhook_events')
    .set({ actions: JSON.stringify(actions) })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId)
    .where('event_id', '=', eventId)
    .execute();
}

/** What an earlier delivery of the event did (a replay answers it again). */
export async function findEvent(db: Executor, merchantAccountId: string, paymentServiceId: string, eventId: string) {
  return db
    .selectFrom('inbound_webhook_events')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_id', '=', paymentServiceId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

/**
 * Deletes up to `batch` events received before `before`, of every merchant account (the retention
 * purge); returns how many. In batches, so a backlog is no long transaction.
 */
export async function purgeEventsReceivedBefore(db: Executor, before: Date, batch = 5_000): Promise<number> {
  const result = await db
    .deleteFrom('inbound_webhook_events')
    .where(({ eb, selectFrom }: any) =>
      eb(
        eb.refTuple('merchant_account_id', 'payment_service_id', 'event_id'),
        'in',
        selectFrom('inbound_webhook_events')
          .select(['merchant_account_id', 'payment_service_id', 'event_id'])
          .where('received_at', '<', before)
          .limit(batch),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
