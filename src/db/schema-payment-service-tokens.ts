import type { ColumnType, Selectable } from 'kysely';

/** Row interface of the payment service tokens table (migration 0014), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export type PaymentServiceTokenStatus = 'processing' | 'buyer_approval_required' | 'succeeded' | 'failed';

export interface PaymentServiceTokensTable {
  merchant_account_id: string;
  id: string;
  payment_method_id: string;
  payment_service_id: string;
  status: PaymentServiceTokenStatus;
  /** The provider's token, sealed by the vault and bound to this row; null until it succeeds. */
  token_ciphertext: string | null;
  token_key_id: string | null;
  approval_url: string | null;
  error_code: string | null;
  /** When reconciliation asks the provider about a `processing` token next (migration 0017). */
  next_check_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  checks: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type PaymentServiceTokenRow = Selectable<PaymentServiceTokensTable>;

declare module './schema.ts' {
  interface Database {
    payment_service_tokens: PaymentServiceTokensTable;
  }
}
