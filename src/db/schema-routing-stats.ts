import type { ColumnType } from 'kysely';

/**
 * Outcomes of authorizations per payment service, dimension key and one-minute bucket (migration
 * 0061): approvals, soft declines (`failures`) and technical errors (`errors`, migration 0066).
 */
export interface RoutingStatsTable {
  merchant_account_id: string;
  payment_service_id: string;
  dimension_key: string;
  bucket_start: ColumnType<Date, Date | string, Date | string>;
  successes: number;
  failures: number;
  errors: ColumnType<number, number | undefined, number>;
}

declare module './schema.ts' {
  interface Database {
    routing_stats: RoutingStatsTable;
  }
}
