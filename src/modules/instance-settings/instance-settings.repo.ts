import type { Selectable } from 'kysely';
import type { InstanceSettingsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

/** An instance-wide secret as stored: sealed by master key `master_key_id`, or in clear when that is null. */
export type InstanceSettingRow = Pick<Selectable<InstanceSettingsTable>, 'key' | 'value' | 'master_key_id'>;

export async function findSetting(db: Executor, key: string): Promise<InstanceSettingRow | undefined> {
  return db
    .selectFrom('instance_settings')
    .select(['key', 'value', 'master_key_id'])
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Stores a setting unless another process just did; undefined then (the caller reads the winner). */
export async function insertSettingIfAbsent(
  db: Executor,
  row: { key: string; value: string; master_key_id: string },
): Promise<InstanceSettingRow | undefined> {
  return db
    .insertInto('instance_settings')
    .values(row)
    .onConflict((oc) => oc.column('key').doNothing())
    .returning(['key', 'value', 'master_key_id'])
    .executeTakeFirst();
}

/**
 * Replaces a value stored in clear by its sealed form. Only the row still holding that value in
 * clear changes: a process that sealed it first wins, and the others' update finds nothing.
 */
export async function sealPlaintextSetting(
  db: Executor,
  key: string,
  plaintext: string,
  sealed: { value: string; master_key_id: string },
): Promise<void> {
  await db
    .updateTable('instance_settings')
    .set(sealed)
    .where('key', '=', key)
    .where('master_key_id', 'is', null)
    .where('value', '=', plaintext)
    .execute();
}

/** Settings sealed by any master key but `currentMasterKeyId`, a batch at a time, locked for re-wrapping. */
export async function lockSettingsToRewrap(
  db: Executor,
  currentMasterKeyId: string,
  batch: number,
): Promise<Array<InstanceSettingRow & { master_key_id: string }>> {
  return db
    .selectFrom('instance_settings')
    .select(['key', 'value', 'master_key_id'])
    .where('master_key_id', 'is not', null)
    .where('master_key_id', '<>', currentMasterKeyId)
    .$narrowType<{ master_key_id: string }>()
    .orderBy('key')
    .limit(batch)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function setSealedSetting(
  db: Executor,
  key: string,
  sealed: { value: string; master_key_id: string },
): Promise<void> {
  await db.updateTable('instance_settings').set(sealed).where('key', '=', key).execute();
}
