import type { Updateable } from 'kysely';
import type {
  NewWebhookSubscription,
  WebhookSubscriptionRow,
  WebhookSubscriptionsTable,
} from '../../db/schema-webhooks.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export type WebhookSubscriptionPatch = Omit<
  Updateable<WebhookSubscriptionsTable>,
  'merchant_account_id' | 'id' | 'created_at' | 'updated_at' | 'creator'
>;

export async function insertSubscription(db: Executor, row: NewWebhookSubscription): Promise<WebhookSubscriptionRow> {
  return db.insertInto('webhook_subscriptions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findSubscription(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookSubscriptionRow | undefined> {
  let query = db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function listSubscriptions(
  db: Executor,
  merchantAccountId: string,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<WebhookSubscriptionRow>> {
  const query = db.selectFrom('webhook_subscriptions').selectAll().where('merchant_account_id', '=', merchantAccountId);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** Oldest first, so deliveries fan out in a stable order. */
export async function listActiveSubscriptions(
  db: Executor,
  merchantAccountId: string,
): Promise<WebhookSubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('active', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateSubscription(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: WebhookSubscriptionPatch,
): Promise<WebhookSubscriptionRow> {
  return db
    .updateTable('webhook_subscriptions')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes the row; its deliveries and their attempts go with it (ON DELETE CASCADE). */
export async function deleteSubscription(db: Executor, merchantAccountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_subscriptions')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
