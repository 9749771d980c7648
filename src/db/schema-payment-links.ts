import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Row interface of the payment links table (migration 0026), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type MaybeTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** JSON columns are written as JSON text. */
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

export type PaymentLinkStatus = 'active' | 'processing' | 'completed' | 'expired';

export interface PaymentLinksTable {
  merchant_account_id: string;
  id: string;
  status: PaymentLinkStatus;
  amount: number;
  currency: string;
  country: string;
  intent: 'authorize' | 'capture';
  payment_source: string;
  store: WithDefault<boolean>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  locale: string | null;
  merchant_name: string | null;
  merchant_url: string | null;
  merchant_banner_url: string | null;
  merchant_color: string | null;
  merchant_message: string | null;
  merchant_terms_and_conditions_url: string | null;
  merchant_favicon_url: string | null;
  external_identifier: string | null;
  statement_descriptor: NullableJson<Record<string, unknown>>;
  return_url: string | null;
  cart_items: NullableJson<unknown[]>;
  metadata: NullableJson<Record<string, string>>;
  buyer: NullableJson<Record<string, unknown>>;
  buyer_id: string | null;
  shipping_details: NullableJson<Record<string, unknown>>;
  installment_count: number | null;
  connection_options: NullableJson<Record<string, unknown>>;
  transaction_id: string | null;
  processing_since: MaybeTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type PaymentLinkRow = Selectable<PaymentLinksTable>;
export type NewPaymentLink = Insertable<PaymentLinksTable>;
export type PaymentLinkPatch = Omit<Updateable<PaymentLinksTable>, 'merchant_account_id' | 'id' | 'created_at'>;

declare module './schema.ts' {
  interface Database {
    payment_links: PaymentLinksTable;
  }
}
