import type { Insertable } from 'kysely';
import type { PaymentMethodRow, PaymentMethodsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export async function insertPaymentMethod(db: Executor, row: Insertable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return db.insertInto('payment_methods').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPaymentMethod(db: Executor, merchantAccountId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<PaymentMethodRow | undefined> {
  let query = db.selectFrom('payment_methods').selectAll().where('merchant_account_id', '=', merchantAccountId).where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function deletePaymentMethod(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db.deleteFrom('payment_methods').where('merchant_account_id', '=', merchantAccountId).where('id', '=', id).execute();
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
