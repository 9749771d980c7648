import type { WebhookDeliveryAttemptRow, WebhookDeliveryRow } from '../../db/schema-webhooks.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export type DeliveryWithKind = WebhookDeliveryRow & { event_kind: string };

function deliveries(db: Executor, merchantAccountId: string, subscriptionId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll('webhook_deliveries')
    .select((eb) =>
      eb
        .selectFrom('events')
        .select('events.kind')
        .whereRef('events.merchant_account_id', '=', 'webhook_deliveries.merchant_account_id')
        .whereRef('events.id', '=', 'webhook_deliveries.event_id')
        .$asScalar()
        .$notNull()
        .as('event_kind'),
    )
    .where('webhook_deliveries.merchant_account_id', '=', merchantAccountId)
    .where('webhook_deliveries.subscription_id', '=', subscriptionId);
}

/** Newest first, on the (merchant_account_id, subscription_id, created_at, id) index. */
export async function listDeliveries(
  db: Executor,
  merchantAccountId: string,
  subscriptionId: string,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<DeliveryWithKind>> {
  return keysetPage(db, deliveries(db, merchantAccountId, subscriptionId), {
    columns: ['created_at', 'id'],
    limit,
    position,
  });
}

export async function findDelivery(
  db: Executor,
  merchantAccountId: string,
  subscriptionId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<DeliveryWithKind | undefined> {
  let query = deliveries(db, merchantAccountId, subscriptionId).where('webhook_deliveries.id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export const MAX_ATTEMPTS_LISTED = 100;

export async function listAttempts(
  db: Executor,
  merchantAccountId: string,
  deliveryId: string,
): Promise<WebhookDeliveryAttemptRow[]> {
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('delivery_id', '=', deliveryId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_ATTEMPTS_LISTED)
    .execute();
}

/** A failed delivery pending again, due now, with a new deadline. */
export async function reopenDelivery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  now: Date,
  giveUpAt: Date,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, give_up_at: giveUpAt, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .execute();
}
