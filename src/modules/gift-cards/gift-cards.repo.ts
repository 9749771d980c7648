import type { Insertable } from 'kysely';
import type { GiftCardRow, GiftCardsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import { isUniqueViolation } from '../../errors/pg-errors.ts';
import type { CursorPosition } from '../../http/cursor.ts';

/** Inserts a gift card; null when the account already stores the same card (same fingerprint). */
export async function insertGiftCard(db: Executor, row: Insertable<GiftCardsTable>): Promise<GiftCardRow | null> {
  try {
    return await db.insertInto('gift_cards').values(row).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error, 'gift_cards_fingerprint_key')) return null;
    throw error;
  }
}

export async function findGiftCard(db: Executor, merchantAccountId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<GiftCardRow | undefined> {
  let query = db.selectFrom('gift_cards').selectAll().where('merchant_account_id', '=', merchantAccountId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findGiftCardByFingerprint(db: Executor, merchantAccountId: string, fingerprint: string): Promise<GiftCardRow | undefined> {
  return db.selectFrom('gift_cards').selectAll().where('merchant_account_id', '=', merchantAccountId).where('fingerprint', '=', fingerprint).executeTakeFirst();
}

/** The stored cards among `ids`, in one query. */
export async function findGiftCards(db: Executor, merchantAccountId: string, ids: readonly string[]): Promise<GiftCardRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('gift_cards').selectAll().where('merchant_account_id', '=', merchantAccountId).where('id', 'in', [...ids]).execute();
}

export async function deleteGiftCard(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db.deleteFrom('gift_cards').where('merchant_account_id', '=', merchantAccountId).where('id', '=', id).execute();
}

export async function listGiftCards(db: Executor, merchantAccountId: string, filter: { buyerId?: string | undefined }, position: CursorPosition | null, limit: number): Promise<KeysetPage<GiftCardRow>> {
  let query = db.selectFrom('gift_cards').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.buyerId) query = query.where('buyer_id', '=', filter.buyerId);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** A buyer's gift cards, newest first; index `gift_cards_buyer_idx`. */
export async function listBuyerGiftCards(db: Executor, merchantAccountId: string, buyerId: string, limit: number): Promise<GiftCardRow[]> {
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
