import { sql, type Insertable, type Updateable } from 'kysely';
import type { GiftCardRedemptionRow, GiftCardRedemptionsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export async function insertRedemptions(
  db: Executor,
  rows: Insertable<GiftCardRedemptionsTable>[],
): Promise<GiftCardRedemptionRow[]> {
  if (rows.length === 0) return [];
  return db.insertInto('gift_card_redemptions').values(rows).returningAll().execute();
}

export async function findRedemption(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<GiftCardRedemptionRow | undefined> {
  let query = db
    .selectFrom('gift_card_redemptions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateRedemption(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<GiftCardRedemptionsTable>,
): Promise<GiftCardRedemptionRow> {
  return db
    .updateTable('gift_card_redemptions')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listTransactionRedemptions(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<GiftCardRedemptionRow[]> {
  return db
    .selectFrom('gift_card_redemptions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The redemptions of several transactions in one query (a page of the transaction list). */
export async function listRedemptionsOfTransactions(
  db: Executor,
  merchantAccountId: string,
  transactionIds: readonly string[],
): Promise<GiftCardRedemptionRow[]> {
  if (transactionIds.length === 0) return [];
  return db
    .selectFrom('gift_card_redemptions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', 'in', [...transactionIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * What we have taken from each card (by fingerprint): succeeded redemptions net of refunds, plus
 * redemptions still in flight (`created`, other than `exceptId`), so two concurrent redemptions
 * cannot both spend the same balance. Index `gift_card_redemptions_fingerprint_idx`.
 */
export async function redeemedByFingerprint(
  db: Executor,
  merchantAccountId: string,
  fingerprints: readonly string[],
  exceptId: string | null = null,
): Promise<Map<string, number>> {
  if (fingerprints.length === 0) return new Map();
  let query = db
    .selectFrom('gift_card_redemptions')
    .select(['fingerprint', sql<string>`COALESCE(SUM(amount - refunded_amount), 0)`.as('total')])
    .where('merchant_account_id', '=', merchantAccountId)
    .where('fingerprint', 'in', [...new Set(fingerprints)])
    .where('status', 'in', ['succeeded', 'created']);
  if (exceptId) query = query.where('id', '<>', exceptId);
  const rows = await query.groupBy('fingerprint').execute();
  return new Map(rows.map((row) => [row.fingerprint, Number(row.total)]));
}

/**
 * Redemptions a crash may have left open, every merchant account, oldest first: still `created`,
 * or a reversal still `pending`, untouched since `before` (reconcile-gift-cards). Partial index
 * `gift_card_redemptions_open_idx`.
 */
export async function listOpenRedemptions(db: Executor, before: Date, limit: number): Promise<GiftCardRedemptionRow[]> {
  return db
    .selectFrom('gift_card_redemptions')
    .selectAll()
    .where((eb) => eb.or([eb('status', '=', 'created'), eb('reversal_status', '=', 'pending')]))
    .where('updated_at', '<=', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}
