import type { ColumnType, Selectable } from 'kysely';
import type { BlocklistValueType } from '../modules/blocklist-entries/blocklist-values.ts';

/** Blocklist entries (migration 0064), merged into `Database` (schema.ts). */
export interface BlocklistEntriesTable {
  merchant_account_id: string;
  id: string;
  value_type: BlocklistValueType;
  value: string;
  card_number_masked: string | null;
  description: string | null;
  expires_at: Date | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export type BlocklistEntryRow = Selectable<BlocklistEntriesTable>;

declare module './schema.ts' {
  interface Database {
    blocklist_entries: BlocklistEntriesTable;
  }
}
