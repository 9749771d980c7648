import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Row interface of the digital wallets table (migration 0027), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export type DigitalWalletProvider = 'apple' | 'google' | 'click-to-pay' | 'paze';

export interface DigitalWalletAddressJson {
  line1: string;
  line2?: string | null;
  city: string;
  state_code: string;
  postal_code: string;
}

export interface DigitalWalletsTable {
  merchant_account_id: string;
  id: string;
  provider: DigitalWalletProvider;
  merchant_name: string;
  merchant_display_name: string | null;
  merchant_url: string | null;
  merchant_country_code: string | null;
  merchant_category_code: string | null;
  address: NullableJson<DigitalWalletAddressJson>;
  extra_configuration: NullableJson<Record<string, unknown>>;
  domain_names: string[];
  fields: NullableJson<Record<string, unknown>>;
  apple_merchant_identifier: string | null;
  google_merchant_id: string | null;
  payment_processing_key_configured: ColumnType<boolean, boolean | undefined, boolean>;
  identity_certificate_expires_at: Date | null;
  secrets_ciphertext: string | null;
  secrets_key_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type DigitalWalletRow = Selectable<DigitalWalletsTable>;
export type NewDigitalWallet = Insertable<DigitalWalletsTable>;
export type DigitalWalletPatch = Omit<Updateable<DigitalWalletsTable>, 'merchant_account_id' | 'id' | 'provider' | 'created_at'>;

declare module './schema.ts' {
  interface Database {
    digital_wallets: DigitalWalletsTable;
  }
}
