import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Timestamps set by the database on insert and by the code on update. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T = unknown> = ColumnType<T, string, string>;

export interface InstanceSettingsTable {
  key: string;
  /** Sealed by the master key `master_key_id` (src/vault/instance-secrets.ts); in clear when that is null (before migration 0049). */
  value: string;
  master_key_id: string | null;
  created_at: CreatedAt;
}

/**
 * A secret kept in clear before migration 0039: read only to seal it, written only to clear it
 * (merchant-account-secrets.ts), so no code can store one in clear again.
 */
type LegacyPlaintextSecret = ColumnType<string | null, never, null>;

export interface MerchantAccountsTable {
  id: string;
  display_name: string;
  account_updater_enabled: Generated<boolean>;
  account_updater_request_encryption_key: LegacyPlaintextSecret;
  account_updater_request_encryption_key_id: string | null;
  account_updater_response_decryption_key: LegacyPlaintextSecret;
  account_updater_response_decryption_key_id: string | null;
  over_capture_amount: number | null;
  over_capture_percentage: number | null;
  loon_client_key: string | null;
  loon_secret_key: LegacyPlaintextSecret;
  /** The secret fields by name (also their vault binding column), sealed under the account's data key (migration 0039). */
  sealed_secrets: ColumnType<Record<string, SealedJson>, string | undefined, string>;
  /** What responses show of each sealed field (maskSecret), so a read opens nothing. */
  secret_masks: ColumnType<Record<string, string>, string | undefined, string>;
  loon_accepted_schemes: string[] | null;
  visa_network_tokens_requestor_id: string | null;
  visa_network_tokens_app_id: string | null;
  amex_network_tokens_requestor_id: string | null;
  amex_network_tokens_app_id: string | null;
  mastercard_network_tokens_requestor_id: string | null;
  mastercard_network_tokens_app_id: string | null;
  async_network_tokens_enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApiKeyPairsTable {
  id: string;
  thumbprint: string;
  algorithm: Generated<string>;
  public_jwk: Json<Record<string, string>>;
  display_name: string;
  merchant_account_id: string | null;
  active: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  revoked_at: Timestamp | null;
  deleted_at: Timestamp | null;
  /** Slugs of the pair's roles (GET /roles): its tokens get at most their scopes; null: no roles. */
  role_slugs: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
}

export interface IdempotencyKeysTable {
  merchant_account_id: string;
  owner: string;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: 'processing' | 'completed';
  response_status: number | null;
  /** Sealed by the vault under the data key `response_key_id` (migration 0012). */
  response_body: string | null;
  response_key_id: string | null;
  /** Scopes and embed pins of the credential that claimed the key; null on pre-0012 claims. */
  credential_hash: string | null;
  /** The resource the request recorded before its connector call (migration 0032); a takeover resumes it. */
  resource_id: string | null;
  locked_until: Timestamp;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

export interface JobsTable {
  id: string;
  name: string;
  payload: Json;
  job_key: string | null;
  status: Generated<'queued' | 'running' | 'succeeded' | 'failed'>;
  run_at: ColumnType<Date, Date | string | undefined, Date | string>;
  attempts: Generated<number>;
  max_attempts: number;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_error: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface AuditLogsTable {
  merchant_account_id: string;
  id: string;
  action: 'created' | 'updated' | 'deleted' | 'voided' | 'canceled' | 'captured';
  resource_type: string;
  resource_id: string;
  resource_name: string;
  user_id: string | null;
  user_name: string;
  user_email_address: string | null;
  user_is_staff: Generated<boolean>;
  operation_id: string | null;
  request_id: string | null;
  created_at: CreatedAt;
}

/**
 * The audit chain's links, one row per batch the sealer linked (migration 0079, decision 0157;
 * insert-only): the entry at `audit_log_ids[k]` has place `first_seq + k` and hash
 * `hashes[32k, 32k + 32)`, the previous entry's hash before it.
 */
export interface AuditChainBatchesTable {
  merchant_account_id: string;
  first_seq: number;
  prev_hash: Uint8Array;
  audit_log_ids: string[];
  hashes: Uint8Array;
}

/** Committed audit entries the sealer has not linked yet (migration 0072; filled by a trigger). */
export interface AuditChainPendingTable {
  merchant_account_id: string;
  created_at: Timestamp;
  audit_log_id: string;
}

/** The newest link of each account's audit hash chain (migrations 0069, 0072). */
export interface AuditChainHeadsTable {
  merchant_account_id: string;
  seq: number;
  hash: Uint8Array;
  updated_at: UpdatedAt;
}

export interface ThreeDsConfigurationsTable {
  merchant_account_id: string;
  id: string;
  scheme: string;
  currency: string | null;
  merchant_acquirer_bin: string;
  merchant_acquirer_id: string;
  merchant_name: string;
  merchant_country_code: string;
  merchant_category_code: string;
  merchant_url: string;
  metadata: Json<Record<string, string>>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface RateLimitWindowsTable {
  bucket: string;
  window_start: Timestamp;
  count: number;
  expires_at: Timestamp;
}

export interface VaultDataKeysTable {
  merchant_account_id: string;
  id: string;
  purpose: 'encryption' | 'fingerprint' | 'request';
  wrapped_key: string;
  master_key_id: string;
  active: Generated<boolean>;
  created_at: CreatedAt;
  rewrapped_at: Timestamp | null;
}

export interface PaymentMethodsTable {
  merchant_account_id: string;
  id: string;
  method: string;
  status: Generated<string>;
  buyer_id: string | null;
  external_identifier: string | null;
  scheme: string | null;
  card_type: string | null;
  bin: string | null;
  last4: string | null;
  expiration_date: string | null;
  fingerprint: string | null;
  number_ciphertext: string | null;
  number_key_id: string | null;
  usage_count: Generated<number>;
  cit_usage_count: Generated<number>;
  last_used_at: Timestamp | null;
  cit_last_used_at: Timestamp | null;
  last_replaced_at: Timestamp | null;
  /** Until when a security code may be held in the vault for this card (migration 0018). */
  security_code_held_until: Timestamp | null;
  /**
   * Set by `PUT /payment-methods/{id}` (migration 0021), and the scheme id by the card's first
   * approved customer-initiated payment when the connector answers one.
   */
  scheme_transaction_id: string | null;
  scheme_transaction_id_scheme: string | null;
  transaction_link_id: string | null;
  /** An account at a provider (migration 0060): its id there (PayPal's payer id) and its masked label. */
  provider_account_id: string | null;
  label: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface AccountUpdaterJobsTable {
  merchant_account_id: string;
  id: string;
  status: Generated<'processing' | 'completed'>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type AccountUpdaterOutcome = 'no_change' | 'expiration_date_updated' | 'number_updated' | 'closed';

export interface AccountUpdaterInquiriesTable {
  merchant_account_id: string;
  id: string;
  job_id: string;
  payment_method_id: string;
  status: Generated<'pending' | 'completed'>;
  outcome: AccountUpdaterOutcome | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  completed_at: Timestamp | null;
}

export interface VaultSecurityCodesTable {
  merchant_account_id: string;
  id: string;
  owner_type: 'payment-method' | 'checkout-session' | 'three-ds-challenge';
  owner_id: string;
  ciphertext: string;
  key_id: string;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

export interface Database {
  instance_settings: InstanceSettingsTable;
  merchant_accounts: MerchantAccountsTable;
  api_key_pairs: ApiKeyPairsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  audit_logs: AuditLogsTable;
  audit_chain_heads: AuditChainHeadsTable;
  audit_chain_batches: AuditChainBatchesTable;
  audit_chain_pending: AuditChainPendingTable;
  three_ds_configurations: ThreeDsConfigurationsTable;
  rate_limit_windows: RateLimitWindowsTable;
  vault_data_keys: VaultDataKeysTable;
  payment_methods: PaymentMethodsTable;
  vault_security_codes: VaultSecurityCodesTable;
  account_updater_jobs: AccountUpdaterJobsTable;
  account_updater_inquiries: AccountUpdaterInquiriesTable;
}

export type MerchantAccountRow = Selectable<MerchantAccountsTable>;
export type NewMerchantAccount = Insertable<MerchantAccountsTable>;
export type MerchantAccountPatch = Updateable<MerchantAccountsTable>;
export type ApiKeyPairRow = Selectable<ApiKeyPairsTable>;
export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;
export type JobRow = Selectable<JobsTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type ThreeDsConfigurationRow = Selectable<ThreeDsConfigurationsTable>;
export type VaultDataKeyRow = Selectable<VaultDataKeysTable>;
export type PaymentMethodRow = Selectable<PaymentMethodsTable>;
export type AccountUpdaterJobRow = Selectable<AccountUpdaterJobsTable>;
export type AccountUpdaterInquiryRow = Selectable<AccountUpdaterInquiriesTable>;

/** An address in a JSON column, keys as on the wire (an absent key reads as null). */
export interface AddressJson {
  city?: string | null;
  country?: string | null;
  postal_code?: string | null;
  state?: string | null;
  state_code?: string | null;
  house_number_or_name?: string | null;
  line1?: string | null;
  line2?: string | null;
  organization?: string | null;
}

/** A buyer's billing details in a JSON column, keys as on the wire. */
export interface BillingDetailsJson {
  first_name?: string | null;
  last_name?: string | null;
  email_address?: string | null;
  phone_number?: string | null;
  address?: AddressJson | null;
  tax_id?: { value: string; kind: string } | null;
}

type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

export interface BuyersTable {
  merchant_account_id: string;
  id: string;
  display_name: string | null;
  external_identifier: string | null;
  account_number: string | null;
  billing_details: NullableJson<BillingDetailsJson>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface BuyerShippingDetailsTable {
  merchant_account_id: string;
  id: string;
  buyer_id: string;
  first_name: string | null;
  last_name: string | null;
  email_address: string | null;
  phone_number: string | null;
  address: NullableJson<AddressJson>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

// Declaration merging: the buyers tables join `Database` here, next to their row interfaces.
export interface Database {
  buyers: BuyersTable;
  buyer_shipping_details: BuyerShippingDetailsTable;
}

export type BuyerRow = Selectable<BuyersTable>;
export type BuyerShippingDetailsRow = Selectable<BuyerShippingDetailsTable>;

export interface CheckoutSessionsTable {
  merchant_account_id: string;
  id: string;
  cart_items: NullableJson<unknown[]>;
  metadata: NullableJson<Record<string, string>>;
  buyer: NullableJson<Record<string, unknown>>;
  /** The stored buyer the session is for (0040): only this buyer's stored cards go into its fields. */
  buyer_id: string | null;
  airline: NullableJson<Record<string, unknown>>;
  amount: number | null;
  currency: string | null;
  payment_service_id: string | null;
  expires_at: Timestamp;
  method: 'card' | 'id' | null;
  payment_method_id: string | null;
  scheme: string | null;
  bin: string | null;
  last4: string | null;
  expiration_date: string | null;
  fingerprint: string | null;
  number_ciphertext: string | null;
  number_key_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

// Declaration merging: the checkout sessions table joins `Database` here.
export interface Database {
  checkout_sessions: CheckoutSessionsTable;
}

export type CheckoutSessionRow = Selectable<CheckoutSessionsTable>;

export interface NetworkTokensTable {
  merchant_account_id: string;
  id: string;
  payment_method_id: string;
  status: 'active' | 'inactive' | 'suspended' | 'deleted';
  token_ciphertext: string | null;
  token_key_id: string | null;
  token_last4: string;
  expiration_date: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

// Declaration merging: the network tokens table joins `Database` here.
export interface Database {
  network_tokens: NetworkTokensTable;
}

export type NetworkTokenRow = Selectable<NetworkTokensTable>;

export interface ThreeDsScenariosTable {
  merchant_account_id: string;
  id: string;
  first_name: string | null;
  last_name: string | null;
  email_address: string | null;
  amount: number | null;
  external_identifier: string | null;
  card_fingerprint: string | null;
  card_number_masked: string | null;
  outcome: Json<ThreeDsScenarioOutcomeJson>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A 3DS scenario's outcome in its JSON column, keys as on the wire. */
export interface ThreeDsScenarioOutcomeJson {
  version: string;
  authentication: { transaction_status: string };
  result: { transaction_status: string } | null;
}

// Declaration merging: the 3DS scenarios table joins `Database` here.
export interface Database {
  three_ds_scenarios: ThreeDsScenariosTable;
}

export type ThreeDsScenarioRow = Selectable<ThreeDsScenariosTable>;

/** A sealed secret value: ciphertext and the data key it was sealed with. */
export interface SealedJson {
  ciphertext: string;
  keyId: string;
}

/** One entry of a payment service's fee schedule, as on the wire (least-cost routing; null: any). */
export interface FeeEntryJson {
  scheme: string | null;
  card_type: 'credit' | 'debit' | 'prepaid' | null;
  currency: string | null;
  country: string | null;
  /** A decimal string of percent, at most 4 decimals ("2.9" is 2.9 %). */
  percent: string;
  fixed_fee: { amount: number; currency: string } | null;
}

/** One card scheme's merchant profile of a payment service, as on the wire plus when it was set. */
export interface MerchantProfileSchemeJson {
  merchant_acquirer_bin: string;
  merchant_acquirer_id: string;
  merchant_name: string;
  merchant_country_code: string;
  merchant_category_code: string;
  merchant_url: string;
  created_at: string;
}

export interface PaymentServicesTable {
  merchant_account_id: string;
  id: string;
  payment_service_definition_id: string;
  method: string;
  display_name: string;
  position: number;
  active: Generated<boolean>;
  status: Generated<'pending' | 'created' | 'failed'>;
  accepted_currencies: string[];
  accepted_countries: string[];
  three_d_secure_enabled: boolean;
  payment_method_tokenization_enabled: boolean;
  network_tokens_enabled: boolean;
  open_loop: boolean;
  settlement_reporting_enabled: boolean;
  merchant_profile: NullableJson<Record<string, MerchantProfileSchemeJson>>;
  /** Non-secret credential field values by key. */
  fields: Json<Record<string, string>>;
  reporting_fields: Json<Record<string, string>>;
  /** Secret values by `field:<key>` / `reporting_field:<key>` (also their vault binding column). */
  sealed_fields: Json<Record<string, SealedJson>>;
  /** Least-cost routing's fee schedule (migration 0063); null: never set. */
  fee_schedule: ColumnType<FeeEntryJson[] | null, string | null | undefined, string | null>;
  fee_schedule_updated_at: Generated<Date | null>;
  is_deleted: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

// Declaration merging: the payment services table joins `Database` here.
export interface Database {
  payment_services: PaymentServicesTable;
}

export type PaymentServiceRow = Selectable<PaymentServicesTable>;

export interface GiftCardsTable {
  merchant_account_id: string;
  id: string;
  buyer_id: string | null;
  bin: string;
  sub_bin: string;
  last4: string;
  fingerprint: string;
  number_ciphertext: string;
  number_key_id: string;
  pin_ciphertext: string;
  pin_key_id: string;
  expiration_date: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type GiftCardRedemptionStatus = 'created' | 'succeeded' | 'failed' | 'skipped';

export interface GiftCardRedemptionsTable {
  merchant_account_id: string;
  id: string;
  transaction_id: string;
  gift_card_id: string | null;
  fingerprint: string;
  bin: string;
  sub_bin: string;
  last4: string;
  amount: number;
  refunded_amount: Generated<number>;
  status: Generated<GiftCardRedemptionStatus>;
  gift_card_service_redemption_id: string | null;
  error_code: string | null;
  raw_error_code: string | null;
  raw_error_message: string | null;
  /** A reversal recorded before its call to the gift card service (migration 0050): `pending` holds `reversal_amount`. */
  reversal_status: Generated<GiftCardReversalStatus | null>;
  reversal_amount: Generated<number | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type GiftCardReversalStatus = 'pending' | 'succeeded' | 'failed';

/** What a built-in simulator received (migration 0050): its status queries answer from it. */
export interface SimulatorCallsTable {
  service: string;
  operation: string;
  idempotency_key: string;
  answer: NullableJson<unknown>;
  created_at: CreatedAt;
}

export interface GiftCardActivationsTable {
  merchant_account_id: string;
  id: string;
  fingerprint: string;
  bin: string;
  sub_bin: string;
  last4: string;
  amount: number;
  currency: string;
  external_identifier: string | null;
  gift_card_id: string | null;
  gift_card_service_activation_id: string;
  expiration_date: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface GiftCardIssuancesTable {
  merchant_account_id: string;
  id: string;
  theme: string;
  amount: number;
  currency: string;
  external_identifier: string | null;
  gift_card_service_payment_issuance_id: string;
  url: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

// Declaration merging: the gift card tables join `Database` here.
export interface Database {
  gift_cards: GiftCardsTable;
  gift_card_redemptions: GiftCardRedemptionsTable;
  gift_card_activations: GiftCardActivationsTable;
  gift_card_issuances: GiftCardIssuancesTable;
  simulator_calls: SimulatorCallsTable;
}

export type GiftCardRow = Selectable<GiftCardsTable>;
export type GiftCardActivationRow = Selectable<GiftCardActivationsTable>;
export type GiftCardIssuanceRow = Selectable<GiftCardIssuancesTable>;
export type GiftCardRedemptionRow = Selectable<GiftCardRedemptionsTable>;

// Declaration merging: dashboard users and sessions (src/db/schema-dashboard.ts) join `Database` here.
export interface Database {
  dashboard_users: import('./schema-dashboard.ts').DashboardUsersTable;
  dashboard_memberships: import('./schema-dashboard.ts').DashboardMembershipsTable;
  dashboard_setup_tokens: import('./schema-dashboard.ts').DashboardSetupTokensTable;
  dashboard_sessions: import('./schema-dashboard.ts').DashboardSessionsTable;
  dashboard_passkeys: import('./schema-dashboard.ts').DashboardPasskeysTable;
}

// Declaration merging: the dashboard's single sign-on (src/db/schema-dashboard-sso.ts).
export interface Database {
  dashboard_sso_logins: import('./schema-dashboard-sso.ts').DashboardSsoLoginsTable;
  dashboard_sso_identities: import('./schema-dashboard-sso.ts').DashboardSsoIdentitiesTable;
}
