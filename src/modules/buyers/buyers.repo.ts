import { sql, type Insertable, type SelectQueryBuilder, type Updateable } from 'kysely';
import type { BuyerRow, BuyersTable, Database } from '../../db/schema.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import { escapeLike } from '../../db/like.ts';

export type NewBuyer = Insertable<BuyersTable>;
export type BuyerPatch = Omit<Updateable<BuyersTable>, 'merchant_account_id' | 'id' | 'created_at' | 'updated_at'>;

/** The unique index on (merchant_account_id, external_identifier). */
export const EXTERNAL_IDENTIFIER_INDEX = 'buyers_external_identifier_key';

/** Inserts the buyer, or returns nothing when its external identifier is taken. */
export async function insertBuyer(db: Executor, row: NewBuyer): Promise<BuyerRow | undefined> {
  return db
    .insertInto('buyers')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findBuyer(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<BuyerRow | undefined> {
  let query = db
    .selectFrom('buyers')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findBuyersByIds(
  db: Executor,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<BuyerRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('buyers')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', 'in', ids)
    .execute();
}

/** The buyer holding an external identifier, other than `exceptId`. */
export async function findBuyerByExternalIdentifier(
  db: Executor,
  merchantAccountId: string,
  externalIdentifier: string,
  exceptId?: string,
): Promise<BuyerRow | undefined> {
  let query = db
    .selectFrom('buyers')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('external_identifier', '=', externalIdentifier);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

export interface BuyerFilter {
  search?: string | undefined;
  externalIdentifier?: string | undefined;
}

/**
 * The buyers of an account matching the filter, unordered (the caller adds the keyset order).
 * `search` is a case-insensitive prefix match on display_name or external_identifier, written
 * exactly as the expressions of the two `text_pattern_ops` indexes so that each side of the OR
 * is an index range scan. `lower()` is applied to the term in SQL too, so both sides fold case
 * the same way, whatever the database's locale.
 */
export function buyersQuery(
  db: Executor,
  merchantAccountId: string,
  filter: BuyerFilter,
): SelectQueryBuilder<Database, 'buyers', BuyerRow> {
  let query = db.selectFrom('buyers').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.externalIdentifier !== undefined)
    query = query.where('external_identifier', '=', filter.externalIdentifier);
  if (filter.search !== undefined) {
    const pattern = sql<string>`lower(${escapeLike(filter.search)}) || '%'`;
    query = query.where((eb) =>
      eb.or([eb(sql`lower(display_name)`, 'like', pattern), eb(sql`lower(external_identifier)`, 'like', pattern)]),
    );
  }
  return query;
}

export async function listBuyers(
  db: Executor,
  merchantAccountId: string,
  filter: BuyerFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<BuyerRow>> {
  return keysetPage(db, buyersQuery(db, merchantAccountId, filter), { columns: ['created_at', 'id'], limit, position });
}

export async function updateBuyer(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: BuyerPatch,
): Promise<BuyerRow | undefined> {
  return db
    .updateTable('buyers')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteBuyer(db: Executor, merchantAccountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('buyers')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
