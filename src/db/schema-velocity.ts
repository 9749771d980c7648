import type { ColumnType } from 'kysely';

/** Velocity counts per key MAC, currency and one-minute bucket (migration 0065). */
export interface VelocityCountsTable {
  merchant_account_id: string;
  key_mac: string;
  currency: string;
  bucket_start: ColumnType<Date, Date | string, Date | string>;
  attempts: number;
  declines: number;
  amount: number;
  cards: string[];
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  writer: string;
}

/** A sole writer's counts: per merchant account, minute and write, lines of entries (migrations 0071, 0073). */
export interface VelocityJournalTable {
  merchant_account_id: string;
  bucket_start: ColumnType<Date, Date | string, Date | string>;
  id: string;
  cells: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

declare module './schema.ts' {
  interface Database {
    velocity_counts: VelocityCountsTable;
    velocity_journal: VelocityJournalTable;
  }
}
