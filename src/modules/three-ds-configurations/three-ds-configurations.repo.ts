import { sql, type Insertable, type Updateable } from 'kysely';
import type { ThreeDsConfigurationRow, ThreeDsConfigurationsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export type NewThreeDsConfiguration = Insertable<ThreeDsConfigurationsTable>;
export type ThreeDsConfigurationPatch = Omit<
  Updateable<ThreeDsConfigurationsTable>,
  'merchant_account_id' | 'id' | 'created_at' | 'updated_at'
>;

/** The unique index on (merchant_account_id, scheme, coalesce(currency, '')). */
export const SCHEME_CURRENCY_INDEX = 'three_ds_configurations_scheme_currency_key';

/** Inserts the configuration, or returns nothing when one with the same scheme and currency exists. */
export async function insertThreeDsConfiguration(
  db: Executor,
  row: NewThreeDsConfiguration,
): Promise<ThreeDsConfigurationRow | undefined> {
  return db
    .insertInto('three_ds_configurations')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findThreeDsConfiguration(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ThreeDsConfigurationRow | undefined> {
  let query = db
    .selectFrom('three_ds_configurations')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The configuration holding a (scheme, currency) pair, other than `exceptId`; a null currency matches only null. */
export async function findThreeDsConfigurationByKey(
  db: Executor,
  merchantAccountId: string,
  key: { scheme: string; currency: string | null },
  exceptId?: string,
): Promise<ThreeDsConfigurationRow | undefined> {
  let query = db
    .selectFrom('three_ds_configurations')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('scheme', '=', key.scheme)
    // The same expression as the unique index, so the index answers.
    .where(sql<string>`coalesce(currency, '')`, '=', key.currency ?? '');
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

/** All configurations of the account, newest first; few per account (one per scheme and currency). */
export async function listThreeDsConfigurations(
  db: Executor,
  merchantAccountId: string,
  filter: { currency?: string | undefined },
): Promise<ThreeDsConfigurationRow[]> {
  let query = db.selectFrom('three_ds_configurations').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function updateThreeDsConfiguration(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: ThreeDsConfigurationPatch,
): Promise<ThreeDsConfigurationRow | undefined> {
  return db
    .updateTable('three_ds_configurations')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteThreeDsConfiguration(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('three_ds_configurations')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
