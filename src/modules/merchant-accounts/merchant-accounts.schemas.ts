import { Type, type Static } from 'typebox';
import type { MerchantAccountRow } from '../../db/schema.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery } from '../../http/schemas/common.ts';
import { CARD_SCHEME_PATTERN } from '../../lib/card-schemes.ts';

const OptionalText = () => Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 1000 })));

const CommonFields = {
  account_updater_enabled: Type.Optional(Type.Boolean()),
  account_updater_request_encryption_key: OptionalText(),
  account_updater_request_encryption_key_id: OptionalText(),
  account_updater_response_decryption_key: OptionalText(),
  account_updater_response_decryption_key_id: OptionalText(),
  over_capture_amount: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'minor currency units' })),
  ),
  over_capture_percentage: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 1000, description: 'percentage, e.g. 25 for 25%' })),
  ),
  loon_client_key: OptionalText(),
  loon_secret_key: OptionalText(),
  loon_accepted_schemes: Type.Optional(
    Nullable(Type.Array(Type.String({ pattern: CARD_SCHEME_PATTERN, maxLength: 50 }), { maxItems: 50 })),
  ),
  visa_network_tokens_requestor_id: OptionalText(),
  visa_network_tokens_app_id: OptionalText(),
  amex_network_tokens_requestor_id: OptionalText(),
  amex_network_tokens_app_id: OptionalText(),
  mastercard_network_tokens_requestor_id: OptionalText(),
  mastercard_network_tokens_app_id: OptionalText(),
  async_network_tokens_enabled: Type.Optional(Type.Boolean()),
};

export const MerchantAccountIdSchema = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'Caller-chosen merchant account ID',
});

export const CreateMerchantAccountBody = Type.Object(
  { id: MerchantAccountIdSchema, display_name: Type.String({ minLength: 1, maxLength: 200 }), ...CommonFields },
  { additionalProperties: false },
);
export type CreateMerchantAccountBody = Static<typeof CreateMerchantAccountBody>;

export const UpdateMerchantAccountBody = Type.Object(
  { display_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))), ...CommonFields },
  { additionalProperties: false },
);
export type UpdateMerchantAccountBody = Static<typeof UpdateMerchantAccountBody>;

export const MerchantAccountParams = Type.Object({ merchant_account_id: MerchantAccountIdSchema });

export const ListMerchantAccountsQuery = Type.Object({
  ...PaginationQuery,
  search: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive match on id or display name' }),
  ),
});
export type ListMerchantAccountsQuery = Static<typeof ListMerchantAccountsQuery>;

const Text = () => Type.Optional(Nullable(Type.String()));

export const MerchantAccountSchema = Type.Object(
  {
    type: Type.Literal('merchant-account'),
    id: Type.String(),
    display_name: Type.String(),
    loon_client_key: Text(),
    loon_secret_key: Text(),
    loon_accepted_schemes: Type.Optional(Nullable(Type.Array(Type.String()))),
    account_updater_request_encryption_key: Text(),
    account_updater_request_encryption_key_id: Text(),
    account_updater_response_decryption_key: Text(),
    account_updater_response_decryption_key_id: Text(),
    account_updater_enabled: Type.Boolean(),
    over_capture_amount: Type.Optional(Nullable(Type.Integer())),
    over_capture_percentage: Type.Optional(Nullable(Type.Integer())),
    visa_network_tokens_requestor_id: Text(),
    visa_network_tokens_app_id: Text(),
    amex_network_tokens_requestor_id: Text(),
    amex_network_tokens_app_id: Text(),
    mastercard_network_tokens_requestor_id: Text(),
    mastercard_network_tokens_app_id: Text(),
    async_network_tokens_enabled: Type.Boolean(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'MerchantAccount' },
);
export type MerchantAccount = Static<typeof MerchantAccountSchema>;

export const MerchantAccountsSchema = ListEnvelope(MerchantAccountSchema, 'MerchantAccounts');

/** Secrets the account holds are returned masked: enough to recognise them, never in full. */
export function maskSecret(value: string | null): string | null {
  if (value === null) return null;
  return value.length <= 8
    ? '*'.repeat(value.length)
    : `${'*'.repeat(Math.min(value.length - 4, 16))}${value.slice(-4)}`;
}

/**
 * What a response shows of a sealed secret field (merchant-account-secrets.ts). A plaintext column
 * still set was written after the sealed value by a process of the previous version (this one
 * clears it whenever it seals the field), so it wins until the job seals it.
 */
export function maskedSecret(
  row: MerchantAccountRow,
  field: 'loon_secret_key' | 'account_updater_request_encryption_key' | 'account_updater_response_decryption_key',
): string | null {
  const plaintext = row[field];
  return plaintext !== null ? maskSecret(plaintext) : (row.secret_masks[field] ?? null);
}

export function toMerchantAccountResource(row: MerchantAccountRow): MerchantAccount {
  return {
    type: 'merchant-account',
    id: row.id,
    display_name: row.display_name,
    loon_client_key: row.loon_client_key,
    loon_secret_key: maskedSecret(row, 'loon_secret_key'),
    loon_accepted_schemes: row.loon_accepted_schemes,
    account_updater_request_encryption_key: maskedSecret(row, 'account_updater_request_encryption_key'),
    account_updater_request_encryption_key_id: row.account_updater_request_encryption_key_id,
    account_updater_response_decryption_key: maskedSecret(row, 'account_updater_response_decryption_key'),
    account_updater_response_decryption_key_id: row.account_updater_response_decryption_key_id,
    account_updater_enabled: row.account_updater_enabled,
    over_capture_amount: row.over_capture_amount,
    over_capture_percentage: row.over_capture_percentage,
    visa_network_tokens_requestor_id: row.visa_network_tokens_requestor_id,
    visa_network_tokens_app_id: row.visa_network_tokens_app_id,
    amex_network_tokens_requestor_id: row.amex_network_tokens_requestor_id,
    amex_network_tokens_app_id: row.amex_network_tokens_app_id,
    mastercard_network_tokens_requestor_id: row.mastercard_network_tokens_requestor_id,
    mastercard_network_tokens_app_id: row.mastercard_network_tokens_app_id,
    async_network_tokens_enabled: row.async_network_tokens_enabled,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
