import type { Insertable, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { BlocklistEntriesTable, BlocklistEntryRow } from '../../db/schema-blocklist.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import type { BlocklistValueType } from './blocklist-values.ts';
import type { LoadedEntry } from './blocklist-matcher.ts';

export type NewBlocklistEntry = Insertable<BlocklistEntriesTable>;

/** The unique index on (merchant_account_id, value_type, value). */
export const VALUE_INDEX = 'blocklist_entries_value_key';

/** Inserts the entries; returns those inserted (an entry whose value is already blocked is left out). */
export async function insertBlocklistEntries(db: Executor, rows: NewBlocklistEntry[]): Promise<BlocklistEntryRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('blocklist_entries')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .execute();
}

export async function findBlocklistEntry(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<BlocklistEntryRow | undefined> {
  let query = db
    .selectFrom('blocklist_entries')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The entries holding these values of one type (the unique index answers). */
export async function findByValues(
  db: Executor,
  merchantAccountId: string,
  valueType: BlocklistValueType,
  values: readonly string[],
): Promise<BlocklistEntryRow[]> {
  if (values.length === 0) return [];
  return db
    .selectFrom('blocklist_entries')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('value_type', '=', valueType)
    .where('value', 'in', values)
    .execute();
}

export interface BlocklistFilter {
  valueType?: BlocklistValueType | undefined;
  value?: string | undefined;
}

/** The entries matching the filter, unordered (keysetPage orders); each filter has its index. */
export function blocklistEntriesQuery(
  db: Executor,
  merchantAccountId: string,
  filter: BlocklistFilter,
): SelectQueryBuilder<Database, 'blocklist_entries', BlocklistEntryRow> {
  let query = db.selectFrom('blocklist_entries').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.valueType !== undefined) query = query.where('value_type', '=', filter.valueType);
  if (filter.value !== undefined) query = query.where('value', '=', filter.value);
  return query;
}

export async function listBlocklistEntries(
  db: Executor,
  merchantAccountId: string,
  filter: BlocklistFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<BlocklistEntryRow>> {
  return keysetPage(db, blocklistEntriesQuery(db, merchantAccountId, filter), {
    columns: ['created_at', 'id'],
    limit,
    position,
  });
}

export async function deleteBlocklistEntry(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<BlocklistEntryRow | undefined> {
  return db
    .deleteFrom('blocklist_entries')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** What the per-process matcher is built from: the account's entries not yet expired (a range of the primary key). */
export async function loadLiveEntries(db: Executor, merchantAccountId: string, now: Date): Promise<LoadedEntry[]> {
  return db
    .selectFrom('blocklist_entries')
    .select(['id', 'value_type', 'value', 'expires_at'])
    .where('merchant_account_id', '=', merchantAccountId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}
