import type { Insertable } from 'kysely';
import type { GiftCardActivated } from '../../connectors/gift-cards/gift-card-connector.ts';
import type { GiftCardActivationRow, GiftCardActivationsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../errors/pg-errors.ts';

/** Records an activation; null when the account already activated the same card (same fingerprint). */
export async function insertActivation(
  db: Executor,
  row: Insertable<GiftCardActivationsTable>,
): Promise<GiftCardActivationRow | null> {
  try {
    return await db.insertInto('gift_card_activations').values(row).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error, 'gift_card_activations_fingerprint_key')) return null;
    throw error;
  }
}

/** What each card (by fingerprint) was activated with, for the simulator; index `gift_card_activations_fingerprint_key`. */
export async function activatedByFingerprint(
  db: Executor,
  merchantAccountId: string,
  fingerprints: readonly string[],
): Promise<Map<string, GiftCardActivated>> {
  if (fingerprints.length === 0) return new Map();
  const rows = await db
    .selectFrom('gift_card_activations')
    .select(['fingerprint', 'amount', 'currency'])
    .where('merchant_account_id', '=', merchantAccountId)
    .where('fingerprint', 'in', [...new Set(fingerprints)])
    .execute();
  return new Map(rows.map((row) => [row.fingerprint, { amount: Number(row.amount), currency: row.currency }]));
}
