import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Row interfaces of the digital wallets tables (migrations 0027, 0033), merged into `Database`. */

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
  /** Migration 0033: who decrypts the wallet's tokens. */
  token_decryption: ColumnType<TokenDecryption, TokenDecryption | undefined, TokenDecryption>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type TokenDecryption = 'server' | 'payment-service';

/** One use of a wallet token (migration 0033): the replay guard. */
export interface WalletTokenUsesTable {
  merchant_account_id: string;
  /** Keyed hash (the vault's fingerprint key) of `<provider>:<token id>`. */
  token_hash: string;
  provider: DigitalWalletProvider;
  transaction_id: string;
  expires_at: Date;
  created_at: CreatedAt;
}

export type DigitalWalletRow = Selectable<DigitalWalletsTable>;
export type NewDigitalWallet = Insertable<DigitalWalletsTable>;
export type DigitalWalletPatch = Omit<
  Updateable<DigitalWalletsTable>,
  'merchant_account_id' | 'id' | 'provider' | 'created_at'
>;

declare module './schema.ts' {
  interface Database {
    digital_wallets: DigitalWalletsTable;
    wallet_token_uses: WalletTokenUsesTable;
  }
}
