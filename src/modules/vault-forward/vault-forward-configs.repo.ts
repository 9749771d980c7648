import type { Insertable } from 'kysely';
import type {
  VaultForwardAuthenticationRow,
  VaultForwardAuthenticationsTable,
  VaultForwardConfigRow,
  VaultForwardConfigsTable,
} from '../../db/schema-vault-forward.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

/** Null when the merchant account already has a config of this definition (the unique index). */
export async function insertConfig(
  db: Executor,
  row: Insertable<VaultForwardConfigsTable>,
): Promise<VaultForwardConfigRow | undefined> {
  return db
    .insertInto('vault_forward_configs')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findConfig(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<VaultForwardConfigRow | undefined> {
  let query = db
    .selectFrom('vault_forward_configs')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findConfigByDefinition(
  db: Executor,
  merchantAccountId: string,
  definitionId: string,
): Promise<VaultForwardConfigRow | undefined> {
  return db
    .selectFrom('vault_forward_configs')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('definition_id', '=', definitionId)
    .executeTakeFirst();
}

export async function listConfigs(
  db: Executor,
  merchantAccountId: string,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<VaultForwardConfigRow>> {
  const query = db.selectFrom('vault_forward_configs').selectAll().where('merchant_account_id', '=', merchantAccountId);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** Every config of the account: one per definition, so a handful at most. */
export async function allConfigs(db: Executor, merchantAccountId: string): Promise<VaultForwardConfigRow[]> {
  return db
    .selectFrom('vault_forward_configs')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .execute();
}

/** Deletes the config; its authentication methods go with it (ON DELETE CASCADE). */
export async function deleteConfig(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('vault_forward_configs')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

export async function insertAuthentication(
  db: Executor,
  row: Insertable<VaultForwardAuthenticationsTable>,
): Promise<VaultForwardAuthenticationRow> {
  return db.insertInto('vault_forward_authentications').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The authentication methods of some configs, oldest first. */
export async function authenticationsOf(
  db: Executor,
  merchantAccountId: string,
  configIds: readonly string[],
): Promise<VaultForwardAuthenticationRow[]> {
  if (configIds.length === 0) return [];
  return db
    .selectFrom('vault_forward_authentications')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('config_id', 'in', configIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findAuthentication(
  db: Executor,
  merchantAccountId: string,
  configId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<VaultForwardAuthenticationRow | undefined> {
  let query = db
    .selectFrom('vault_forward_authentications')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('config_id', '=', configId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Authentication methods by id, whatever their config (a forward names ids only). */
export async function authenticationsByIds(
  db: Executor,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<VaultForwardAuthenticationRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('vault_forward_authentications')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', 'in', ids)
    .execute();
}

export async function updateAuthentication(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: { display_name?: string; label?: string; fields?: string; sealed_fields?: string },
): Promise<VaultForwardAuthenticationRow> {
  return db
    .updateTable('vault_forward_authentications')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAuthentication(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('vault_forward_authentications')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}
