import { sql, type Insertable, type Updateable } from 'kysely';
import type { PaymentServiceRow, PaymentServicesTable } from '../../db/schema.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export type NewPaymentService = Insertable<PaymentServicesTable>;
export type PaymentServicePatch = Omit<
  Updateable<PaymentServicesTable>,
  'merchant_account_id' | 'id' | 'created_at' | 'updated_at'
>;

export async function insertPaymentService(db: Executor, row: NewPaymentService): Promise<PaymentServiceRow> {
  return db.insertInto('payment_services').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A service of the account, deleted ones included (callers decide what a deleted one means). */
export async function findPaymentService(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentServiceRow | undefined> {
  let query = db
    .selectFrom('payment_services')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The position after the last service of this method that is not deleted (1 for the first). */
export async function nextPosition(db: Executor, merchantAccountId: string, method: string): Promise<number> {
  const row = await db
    .selectFrom('payment_services')
    .select(sql<number>`coalesce(max(position), 0) + 1`.as('next'))
    .where('merchant_account_id', '=', merchantAccountId)
    .where('method', '=', method)
    .where('is_deleted', '=', false)
    .executeTakeFirstOrThrow();
  return Number(row.next);
}

export interface PaymentServiceFilter {
  method?: string | undefined;
  deleted: boolean;
}

export async function listPaymentServices(
  db: Executor,
  merchantAccountId: string,
  filter: PaymentServiceFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<PaymentServiceRow>> {
  let query = db
    .selectFrom('payment_services')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('is_deleted', '=', filter.deleted);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** Routing order: position, then the oldest first, then id (a total order whatever the ties). */
export async function listRoutable(db: Executor, merchantAccountId: string): Promise<PaymentServiceRow[]> {
  return db
    .selectFrom('payment_services')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('active', '=', true)
    .where('is_deleted', '=', false)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updatePaymentService(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: PaymentServicePatch,
): Promise<PaymentServiceRow> {
  return db
    .updateTable('payment_services')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Instance-wide, for the start-up check of a production server only (no request reads it): the
 * services not deleted whose definition is one of `definitionIds`, at most `limit`.
 */
export async function listServicesOfDefinitions(
  db: Executor,
  definitionIds: readonly string[],
  limit: number,
): Promise<
  Array<Pick<PaymentServiceRow, 'merchant_account_id' | 'id' | 'payment_service_definition_id' | 'display_name'>>
> {
  if (definitionIds.length === 0) return [];
  return db
    .selectFrom('payment_services')
    .select(['merchant_account_id', 'id', 'payment_service_definition_id', 'display_name'])
    .where('payment_service_definition_id', 'in', definitionIds)
    .where('is_deleted', '=', false)
    .orderBy('payment_service_definition_id')
    .orderBy('merchant_account_id')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Instance-wide (the settlement scheduler's walk over every merchant account): services of these definitions with `settlement_reporting_enabled`, not deleted, keyset by (merchant account, id). */
export async function listSettlementReportingOfDefinitions(
  db: Executor,
  definitionIds: string[],
  after: { merchantAccountId: string; id: string } | null,
  limit: number,
): Promise<PaymentServiceRow[]> {
  if (definitionIds.length === 0) return [];
  let query = db
    .selectFrom('payment_services')
    .selectAll()
    .where('payment_service_definition_id', 'in', definitionIds)
    .where('is_deleted', '=', false)
    .where('settlement_reporting_enabled', '=', true);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('merchant_account_id', '>', after.merchantAccountId),
        eb.and([eb('merchant_account_id', '=', after.merchantAccountId), eb('id', '>', after.id)]),
      ]),
    );
  return query.orderBy('merchant_account_id').orderBy('id').limit(limit).execute();
}
