import type { ColumnType, Selectable } from 'kysely';
import type { SealedJson } from './schema.ts';

/** Row interfaces of the vault forwarding configuration tables (migration 0024), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** JSON columns are written as JSON text. */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

export interface VaultForwardConfigsTable {
  merchant_account_id: string;
  id: string;
  definition_id: string;
  display_name: string;
  /** The merchant's own hosts (the `custom` definition only); null: the definition's hosts. */
  hosts: NullableJson<string[]>;
  creator: NullableJson<{ id: string; name: string; email_address: string | null }>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type VaultForwardAuthenticationKind = 'mle' | 'mtls' | 'signature';

export interface VaultForwardAuthenticationsTable {
  merchant_account_id: string;
  id: string;
  config_id: string;
  kind: VaultForwardAuthenticationKind;
  display_name: string;
  label: string;
  /** Values that are not secret, by key. */
  fields: Json<Record<string, string>>;
  /** Secret values by key (their vault binding column is `field:<key>`). */
  sealed_fields: Json<Record<string, SealedJson>>;
  creator: NullableJson<{ id: string; name: string; email_address: string | null }>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

declare module './schema.ts' {
  interface Database {
    vault_forward_configs: VaultForwardConfigsTable;
    vault_forward_authentications: VaultForwardAuthenticationsTable;
  }
}

export type VaultForwardConfigRow = Selectable<VaultForwardConfigsTable>;
export type VaultForwardAuthenticationRow = Selectable<VaultForwardAuthenticationsTable>;
