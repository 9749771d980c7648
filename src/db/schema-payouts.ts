import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Row interfaces of the payouts tables (migration 0020), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type MaybeTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** JSON columns are written as JSON text. */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

export type PayoutStatus = 'pending' | 'succeeded' | 'declined' | 'failed';
export type PayoutAttemptStatus = 'in_flight' | 'unknown' | 'pending' | 'succeeded' | 'declined' | 'failed';

export interface PayoutsTable {
  merchant_account_id: string;
  id: string;
  status: PayoutStatus;
  amount: number;
  currency: string;
  category: 'online_gambling' | null;
  external_identifier: string | null;
  payment_service_id: string;
  payment_service: Json<{
    id: string;
    payment_service_definition_id: string;
    method: string;
    display_name: string | null;
  }>;
  payment_method_id: string | null;
  payment_method: Json<Record<string, unknown>>;
  buyer_id: string | null;
  buyer: NullableJson<Record<string, unknown>>;
  merchant: NullableJson<Record<string, unknown>>;
  connection_options: NullableJson<Record<string, unknown>>;
  payment_service_payout_id: string | null;
  error_code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface PayoutAttemptsTable {
  merchant_account_id: string;
  id: string;
  payout_id: string;
  payment_service_id: string;
  status: PayoutAttemptStatus;
  provider_reference: string | null;
  error_code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  next_check_at: MaybeTime;
  checks: WithDefault<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type PayoutRow = Selectable<PayoutsTable>;
export type NewPayout = Insertable<PayoutsTable>;
export type PayoutPatch = Omit<Updateable<PayoutsTable>, 'merchant_account_id' | 'id' | 'created_at'>;
export type PayoutAttemptRow = Selectable<PayoutAttemptsTable>;
export type NewPayoutAttempt = Insertable<PayoutAttemptsTable>;
export type PayoutAttemptPatch = Omit<
  Updateable<PayoutAttemptsTable>,
  'merchant_account_id' | 'id' | 'payout_id' | 'created_at'
>;

declare module './schema.ts' {
  interface Database {
    payouts: PayoutsTable;
    payout_attempts: PayoutAttemptsTable;
  }
}
