import type { Insertable } from 'kysely';
import type { GiftCardIssuanceRow, GiftCardIssuancesTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export async function insertIssuance(
  db: Executor,
  row: Insertable<GiftCardIssuancesTable>,
): Promise<GiftCardIssuanceRow> {
  return db.insertInto('gift_card_issuances').values(row).returningAll().executeTakeFirstOrThrow();
}
