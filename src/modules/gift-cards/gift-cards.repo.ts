import { sql, type Insertable } from 'kysely';
import type { GiftCardRow, GiftCardsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import { isUniqueViolation } from '../../errors/pg-errors.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import type { GiftCardUsage } from './gift-cards.schemas.ts';

/** Inserts a gift card; null when the account already stores the same card (same fingerprint). */
export async function insertGiftCard(db: Executor, row: Insertable<GiftCardsTable>): Promise<GiftCardRow | null> {
  try {
    return await db.insertInto('gift_cards').values(row).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error, 'gift_cards_fingerprint_key')) return null;
    throw error;
  }
}

export async function findGiftCard(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<GiftCardRow | undefined> {
  let query = db
    .selectFrom('gift_cards')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findGiftCardByFingerprint(
  db: Executor,
  merchantAccountId: string,
  fingerprint: string,
): Promise<GiftCardRow | undefined> {
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('fingerprint', '=', fingerprint)
    .executeTakeFirst();
}

/** The stored cards among `ids`, in one query. */
export async function findGiftCards(
  db: Executor,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<GiftCardRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function deleteGiftCard(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db.deleteFrom('gift_cards').where('merchant_account_id', '=', merchantAccountId).where('id', '=', id).execute();
}

export async function listGiftCards(
  db: Executor,
  merchantAccountId: string,
  filter: { buyerId?: string | undefined },
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<GiftCardRow>> {
  let query = db.selectFrom('gift_cards').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.buyerId) query = query.where('buyer_id', '=', filter.buyerId);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** A buyer's gift cards, newest first; index `gift_cards_buyer_idx`. */
export async function listBuyerGiftCards(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
  limit: number,
): Promise<GiftCardRow[]> {
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

/**
 * The succeeded redemptions of stored cards, counted per card, and those of customer-initiated
 * transactions (not `merchant_initiated`); index `gift_card_redemptions_gift_card_idx`.
 */
export function usageOf(
  db: Executor,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<Map<string, GiftCardUsage>> {
  return usageBy(db, merchantAccountId, 'gift_card_id', ids);
}

/** As `usageOf`, of cards by the fingerprint of their number (stored or given in full); index `gift_card_redemptions_fingerprint_idx`. */
export function usageByFingerprint(
  db: Executor,
  merchantAccountId: string,
  fingerprints: readonly string[],
): Promise<Map<string, GiftCardUsage>> {
  return usageBy(db, merchantAccountId, 'fingerprint', fingerprints);
}

/** One grouped read for every key, whatever their number. */
async function usageBy(
  db: Executor,
  merchantAccountId: string,
  key: 'gift_card_id' | 'fingerprint',
  values: readonly string[],
): Promise<Map<string, GiftCardUsage>> {
  if (values.length === 0) return new Map();
  const column = `r.${key}` as const;
  const rows = await db
    .selectFrom('gift_card_redemptions as r')
    .leftJoin('transactions as t', (join) =>
      join.onRef('t.merchant_account_id', '=', 'r.merchant_account_id').onRef('t.id', '=', 'r.transaction_id'),
    )
    .select([
      sql<string>`${sql.ref(column)}`.as('key'),
      sql<string>`COUNT(*)`.as('usage_count'),
      sql<Date | null>`MAX(r.created_at)`.as('last_used_at'),
      sql<string>`COUNT(*) FILTER (WHERE t.merchant_initiated IS NOT TRUE)`.as('cit_usage_count'),
      sql<Date | null>`MAX(r.created_at) FILTER (WHERE t.merchant_initiated IS NOT TRUE)`.as('cit_last_used_at'),
    ])
    .where('r.merchant_account_id', '=', merchantAccountId)
    .where(column, 'in', [...new Set(values)])
    .where('r.status', '=', 'succeeded')
    .groupBy(column)
    .execute();
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return new Map(
    rows.map((row) => [
      row.key,
      {
        usageCount: Number(row.usage_count),
        lastUsedAt: date(row.last_used_at),
        citUsageCount: Number(row.cit_usage_count),
        citLastUsedAt: date(row.cit_last_used_at),
      },
    ]),
  );
}
