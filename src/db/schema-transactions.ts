import type { ColumnType, Insertable, Selectable } from 'kysely';

/** Row interfaces of the transaction engine's tables (migration 0011), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type MaybeTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** JSON columns are written as JSON text. */
type Json<T> = ColumnType<T, string | undefined, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

export type TransactionStatus =
  | 'processing'
  | 'buyer_approval_pending'
  | 'authorization_succeeded'
  | 'authorization_declined'
  | 'authorization_failed'
  | 'authorization_voided'
  | 'authorization_void_pending'
  | 'capture_succeeded'
  | 'capture_pending';

/** A routing or flow decision, as `GET /transactions/{id}/actions` lists it. */
export interface TransactionActionJson {
  id: 'select-payment-options' | 'route-transaction' | 'decline-early' | 'skip-3ds';
  flow: 'checkout' | 'card-transaction' | 'non-card-transaction' | 'redirect-transaction';
  rule_id: string;
  created_at: string;
  outcome: Record<string, unknown>;
}

export interface TransactionsTable {
  merchant_account_id: string;
  id: string;
  status: TransactionStatus;
  intent: 'authorize' | 'capture';
  /** Null while the row awaits its connector's answer (in flight, decision 0154): shown as 'pending'. */
  intent_outcome: 'pending' | 'succeeded' | 'failed' | null;
  currency: string;
  country: string | null;
  amount: number;
  gift_card_amount: WithDefault<number>;
  authorized_amount: WithDefault<number>;
  capture_limit: WithDefault<number>;
  captured_amount: WithDefault<number>;
  refunded_amount: WithDefault<number>;
  capture_reserved: WithDefault<number>;
  refund_reserved: WithDefault<number>;
  settled_amount: WithDefault<number>;
  settled: WithDefault<boolean>;
  settled_currency: string | null;
  capture_closed: WithDefault<boolean>;
  disputed: WithDefault<boolean>;
  pending_review: WithDefault<boolean>;
  method: string | null;
  instrument_type: string | null;
  payment_method_id: string | null;
  payment_method: NullableJson<Record<string, unknown>>;
  card_fingerprint: string | null;
  payment_service_id: string | null;
  payment_service: NullableJson<Record<string, unknown>>;
  buyer_id: string | null;
  buyer: NullableJson<Record<string, unknown>>;
  buyer_external_identifier: string | null;
  buyer_email_address: string | null;
  shipping_details: NullableJson<Record<string, unknown>>;
  checkout_session_id: string | null;
  /** The payment link paid by this transaction (migration 0026). */
  payment_link_id: ColumnType<string | null, string | null | undefined, string | null>;
  ip_address: string | null;
  external_identifier: string | null;
  error_code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  auth_response_code: string | null;
  avs_response_code: string | null;
  cvv_response_code: string | null;
  anti_fraud_decision: string | null;
  /** The configured anti-fraud service that holds the payment's order, told its later outcomes (migration 0070). */
  anti_fraud_service_id: ColumnType<string | null, string | null | undefined, string | null>;
  merchant_advice_code: string | null;
  payment_source: string;
  merchant_initiated: boolean;
  /** `store: true` of a payment approved on the provider's page: the account is stored once authorized (migration 0060). */
  store_on_approval: ColumnType<boolean, boolean | undefined, boolean>;
  is_subsequent_payment: boolean;
  multi_tender: WithDefault<boolean>;
  account_funding_transaction: WithDefault<boolean>;
  scheme_transaction_id: string | null;
  payment_service_transaction_id: string | null;
  additional_identifiers: Json<Record<string, string | null>>;
  metadata: NullableJson<Record<string, string>>;
  cart_items: NullableJson<unknown[]>;
  airline: NullableJson<Record<string, unknown>>;
  statement_descriptor: NullableJson<Record<string, unknown>>;
  three_d_secure: NullableJson<Record<string, unknown>>;
  recipient: NullableJson<Record<string, unknown>>;
  extra: Json<Record<string, unknown>>;
  connection_options: NullableJson<Record<string, unknown>>;
  actions: Json<TransactionActionJson[]>;
  approval_url: string | null;
  authorized_at: MaybeTime;
  captured_at: MaybeTime;
  voided_at: MaybeTime;
  canceled_at: MaybeTime;
  approval_expires_at: MaybeTime;
  buyer_approval_timedout_at: MaybeTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type AttemptOperation = 'authorize' | 'capture' | 'void' | 'cancel' | 'refund' | 'increment';
export type AttemptStatus = 'in_flight' | 'unknown' | 'pending' | 'succeeded' | 'declined' | 'failed';

export interface TransactionAttemptsTable {
  merchant_account_id: string;
  id: string;
  transaction_id: string;
  operation: AttemptOperation;
  status: AttemptStatus;
  amount: WithDefault<number>;
  final: WithDefault<boolean>;
  refund_id: string | null;
  payment_service_id: string | null;
  external_identifier: string | null;
  provider_reference: string | null;
  approval_decision: 'approved' | 'declined' | null;
  error_code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  next_check_at: MaybeTime;
  checks: WithDefault<number>;
  /** A void of a late authorization: the authorize attempt it releases (migration 0017). */
  compensates_attempt_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** The view `transaction_events` (migration 0076): one row per history event, read only. */
export interface TransactionEventsTable {
  merchant_account_id: string;
  id: string;
  transaction_id: string;
  name: string;
  context: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

/**
 * `transaction_history`, what the view reads: one row per write of a transaction's history, its
 * first event in the columns and the others of that write (same created_at) in `more` (decision 0150).
 */
export interface TransactionHistoryTable extends TransactionEventsTable {
  more: ColumnType<Array<{ id: string; name: string; context: Record<string, unknown> }> | null, string | null, never>;
}

export type RefundStatus = 'processing' | 'succeeded' | 'failed' | 'declined' | 'voided';

export interface RefundsTable {
  merchant_account_id: string;
  id: string;
  transaction_id: string;
  status: RefundStatus;
  currency: string;
  amount: number;
  reason: string | null;
  target_type: 'payment-method' | 'gift-card-redemption';
  target_id: string | null;
  external_identifier: string | null;
  payment_service_refund_id: string | null;
  error_code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  creator: NullableJson<{ id: string; name: string; email_address: string }>;
  /** Its settlement record exists (migration 0047). */
  settled: WithDefault<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface SettlementsTable {
  merchant_account_id: string;
  id: string;
  transaction_id: string;
  refund_id: string | null;
  /** The capture this settlement records; null for a refund or the whole captured amount (migration 0017). */
  capture_attempt_id: ColumnType<string | null, string | null | undefined, string | null>;
  currency: string;
  amount: number;
  exchange_rate: number | null;
  commission: WithDefault<number>;
  interchange: number | null;
  markup: number | null;
  scheme_fee: number | null;
  payment_service_report_id: string;
  payment_service_report_file_ids: Json<string[]>;
  posted_at: Date | string;
  ingested_at: Date | string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** The payment service whose report the record is a line of (migration 0051; null on older sandbox records). */
  payment_service_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The provider's id of the report line (unique per payment service); null for the sandbox's records (migration 0051). */
  report_line_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * A chargeback or chargeback reversal: a line of a payment service's settlement report (migration
 * 0046). The settlement fields, with the line's kind and its id at the payment service.
 */
export interface ChargebacksTable
  extends Omit<SettlementsTable, 'refund_id' | 'capture_attempt_id' | 'payment_service_id' | 'report_line_id'> {
  kind: 'chargeback' | 'chargeback-reversal';
  payment_service_id: string;
  /** The provider's id of the report line: unique per payment service. */
  report_line_id: string;
}

declare module './schema.ts' {
  interface Database {
    transactions: TransactionsTable;
    transaction_attempts: TransactionAttemptsTable;
    transaction_events: TransactionEventsTable;
    transaction_history: TransactionHistoryTable;
    refunds: RefundsTable;
    settlements: SettlementsTable;
    chargebacks: ChargebacksTable;
  }
}

export type TransactionRow = Selectable<TransactionsTable>;
export type NewTransaction = Insertable<TransactionsTable>;
export type AttemptRow = Selectable<TransactionAttemptsTable>;
export type NewAttempt = Insertable<TransactionAttemptsTable>;
export type TransactionEventRow = Selectable<TransactionEventsTable>;
export type NewTransactionEvent = Insertable<TransactionEventsTable>;
export type RefundRow = Selectable<RefundsTable>;
export type SettlementRow = Selectable<SettlementsTable>;
export type ChargebackRow = Selectable<ChargebacksTable>;
