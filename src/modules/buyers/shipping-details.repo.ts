import type { Insertable, Updateable } from 'kysely';
import type { BuyerShippingDetailsRow, BuyerShippingDetailsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export type NewShippingDetails = Insertable<BuyerShippingDetailsTable>;
export type ShippingDetailsPatch = Omit<
  Updateable<BuyerShippingDetailsTable>,
  'merchant_account_id' | 'id' | 'buyer_id' | 'created_at' | 'updated_at'
>;

export async function insertShippingDetails(db: Executor, row: NewShippingDetails): Promise<BuyerShippingDetailsRow> {
  return db.insertInto('buyer_shipping_details').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findShippingDetails(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<BuyerShippingDetailsRow | undefined> {
  let query = db
    .selectFrom('buyer_shipping_details')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The shipping details of a buyer, newest first (bounded per buyer, see the service). */
export async function listShippingDetails(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
): Promise<BuyerShippingDetailsRow[]> {
  return db
    .selectFrom('buyer_shipping_details')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function countShippingDetails(db: Executor, merchantAccountId: string, buyerId: string): Promise<number> {
  const row = await db
    .selectFrom('buyer_shipping_details')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateShippingDetails(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
  id: string,
  patch: ShippingDetailsPatch,
): Promise<BuyerShippingDetailsRow | undefined> {
  return db
    .updateTable('buyer_shipping_details')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteShippingDetails(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('buyer_shipping_details')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes every shipping details of a buyer; returns the deleted rows (for their audit entries). */
export async function deleteShippingDetailsOfBuyer(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
): Promise<BuyerShippingDetailsRow[]> {
  return db
    .deleteFrom('buyer_shipping_details')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .returningAll()
    .execute();
}
