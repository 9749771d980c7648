import type { ColumnType, Selectable } from 'kysely';

/** Row interface of the settlement ingestion state, one per payment service (migration 0051), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type MaybeTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Count = ColumnType<number, number | undefined, number>;

export interface SettlementIngestionsTable {
  merchant_account_id: string;
  payment_service_id: string;
  /** Where the provider's listing starts (`--since`, or the payment service's creation). */
  since: ColumnType<Date, Date | string, Date | string>;
  /** The connector's position after the last page written; null: start at `since`. */
  cursor: ColumnType<string | null, string | null | undefined, string | null>;
  last_run_at: MaybeTime;
  last_success_at: MaybeTime;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  lines_written: Count;
  lines_duplicate: Count;
  lines_unmatched: Count;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

declare module './schema.ts' {
  interface Database {
    settlement_ingestions: SettlementIngestionsTable;
  }
}

export type SettlementIngestionRow = Selectable<SettlementIngestionsTable>;
