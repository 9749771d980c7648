import { sql, type Insertable, type Updateable } from 'kysely';
import type { PaymentMethodRow, PaymentMethodsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import { rowByKeys } from '../../db/keyed-queries.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export async function insertPaymentMethod(
  db: Executor,
  row: Insertable<PaymentMethodsTable>,
): Promise<PaymentMethodRow> {
  return db.insertInto('payment_methods').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPaymentMethod(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentMethodRow | undefined> {
  return rowByKeys(
    db,
    'payment_methods',
    [
      ['merchant_account_id', merchantAccountId],
      ['id', id],
    ],
    options,
  );
}

export async function deletePaymentMethod(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('payment_methods')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

export interface PaymentMethodFilter {
  buyerId?: string | undefined;
  externalIdentifier?: string | undefined;
  statuses?: string[] | undefined;
}

export async function listPaymentMethods(
  db: Executor,
  merchantAccountId: string,
  filter: PaymentMethodFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<PaymentMethodRow>> {
  let query = db.selectFrom('payment_methods').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.buyerId) query = query.where('buyer_id', '=', filter.buyerId);
  if (filter.externalIdentifier) query = query.where('external_identifier', '=', filter.externalIdentifier);
  if (filter.statuses && filter.statuses.length > 0) query = query.where('status', 'in', filter.statuses);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** Stored methods among `ids`, locked in id order (two callers locking overlapping sets cannot deadlock). */
export async function lockPaymentMethods(
  db: Executor,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<PaymentMethodRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('payment_methods')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function updatePaymentMethod(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<PaymentMethodsTable>,
): Promise<PaymentMethodRow> {
  return db
    .updateTable('payment_methods')
    .set(patch)
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Gives a card the scheme's transaction id of a payment unless it has one already: the first
 * approved customer-initiated payment's id is the one merchant-initiated payments refer to, and a
 * later payment (or a race of two first ones) must not move it.
 */
export function recordSchemeTransactionIdQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  schemeTransactionId: string,
  scheme: string | null,
  now: Date,
) {
  return db
    .updateTable('payment_methods')
    .set({ scheme_transaction_id: schemeTransactionId, scheme_transaction_id_scheme: scheme, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .where('scheme_transaction_id', 'is', null);
}

/** A buyer's usable methods by last use (never used last), then newest first; index `payment_methods_buyer_idx`. */
export async function listBuyerPaymentMethods(
  db: Executor,
  merchantAccountId: string,
  buyerId: string,
  order: 'asc' | 'desc',
  limit: number,
): Promise<PaymentMethodRow[]> {
  return db
    .selectFrom('payment_methods')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('buyer_id', '=', buyerId)
    .where('status', '=', 'succeeded')
    .orderBy(sql`last_used_at ${sql.raw(order === 'asc' ? 'ASC' : 'DESC')} NULLS LAST`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
