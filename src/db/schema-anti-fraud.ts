import type { ColumnType, Selectable } from 'kysely';
import type { SealedJson } from './schema.ts';

/** Anti-fraud services (migration 0068), merged into `Database` (schema.ts). */
type Json<T> = ColumnType<T, string | undefined, string>;

export interface AntiFraudServicesTable {
  merchant_account_id: string;
  id: string;
  anti_fraud_service_definition_id: string;
  display_name: string;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  /** Values that are not secret, by key. */
  fields: Json<Record<string, string>>;
  /** Secret values by key (their vault binding column is `field:<key>`). */
  sealed_fields: Json<Record<string, SealedJson>>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type AntiFraudServiceRow = Selectable<AntiFraudServicesTable>;

declare module './schema.ts' {
  interface Database {
    anti_fraud_services: AntiFraudServicesTable;
  }
}
