import { sql } from 'kysely';
import type { VaultDataKeyRow } from '../db/schema.ts';
import type { Executor } from '../db/transaction.ts';

export type Purpose = VaultDataKeyRow['purpose'];

export async function findActiveKey(
  db: Executor,
  merchantAccountId: string,
  purpose: Purpose,
): Promise<VaultDataKeyRow | undefined> {
  return db
    .selectFrom('vault_data_keys')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('purpose', '=', purpose)
    .where('active', '=', true)
    .executeTakeFirst();
}

export async function findKey(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<VaultDataKeyRow | undefined> {
  return db
    .selectFrom('vault_data_keys')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Inserts the active key unless another process just did; the caller reads the winner back. */
export async function insertActiveKey(
  db: Executor,
  row: { merchant_account_id: string; id: string; purpose: Purpose; wrapped_key: string; master_key_id: string },
): Promise<void> {
  await db
    .insertInto('vault_data_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_account_id', 'purpose']).where(sql<boolean>`active`).doNothing())
    .execute();
}

/** Keys wrapped by any master key but `currentMasterKeyId`, a batch at a time, locked for re-wrapping. */
export async function lockKeysToRewrap(
  db: Executor,
  currentMasterKeyId: string,
  batch: number,
): Promise<VaultDataKeyRow[]> {
  return db
    .selectFrom('vault_data_keys')
    .selectAll()
    .where('master_key_id', '<>', currentMasterKeyId)
    .limit(batch)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function setWrappedKey(
  db: Executor,
  row: VaultDataKeyRow,
  wrapped: string,
  masterKeyId: string,
): Promise<void> {
  await db
    .updateTable('vault_data_keys')
    .set({ wrapped_key: wrapped, master_key_id: masterKeyId, rewrapped_at: new Date() })
    .where('merchant_account_id', '=', row.merchant_account_id)
    .where('id', '=', row.id)
    .execute();
}

/** The master keys the stored data keys are wrapped with (one row per master key in use). */
export async function masterKeyIdsInUse(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('vault_data_keys').select('master_key_id').distinct().execute();
  return rows.map((row) => row.master_key_id);
}
