import type { ColumnType, Selectable } from 'kysely';

/** Row interfaces of the reports tables (migration 0025), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** JSON columns are written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface ReportsTable {
  merchant_account_id: string;
  id: string;
  name: string;
  description: string | null;
  schedule: 'once' | 'daily' | 'weekly' | 'monthly';
  schedule_enabled: boolean;
  schedule_timezone: string;
  spec: Json<{ model: string; params: Record<string, unknown> }>;
  creator_id: string | null;
  creator_display_name: string | null;
  creator_type: 'user' | 'private_key' | null;
  /** Whether the creator could read personal data: the files show it unmasked only then. */
  reveal_pii: boolean;
  next_execution_at: ColumnType<Date | null, Date | null, Date | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ReportExecutionsTable {
  merchant_account_id: string;
  id: string;
  report_id: string;
  status: 'pending' | 'processing' | 'succeeded' | 'failed' | 'dispatched';
  reference_timestamp: Timestamp;
  reference_timezone: string;
  file_key: string | null;
  row_count: number | null;
  size: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

declare module './schema.ts' {
  interface Database {
    reports: ReportsTable;
    report_executions: ReportExecutionsTable;
  }
}

export type ReportRow = Selectable<ReportsTable>;
export type ReportExecutionRow = Selectable<ReportExecutionsTable>;
