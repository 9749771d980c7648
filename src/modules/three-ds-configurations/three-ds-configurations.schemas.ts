import { Type, type Static } from 'typebox';
import type { ThreeDsConfigurationRow } from '../../db/schema.ts';
import { Currency, DateTime, ItemList, Nullable, Uuid } from '../../http/schemas/common.ts';
import { CARD_SCHEME_PATTERN } from '../../lib/card-schemes.ts';
import { MerchantAccountIdSchema } from '../merchant-accounts/merchant-accounts.schemas.ts';

export const THREE_DS_CONFIGURATION_TYPE = 'merchant-account.three-ds-configuration';

/** Limits of the metadata map: enough for acquirer-specific extras, small enough to send on every 3DS request. */
export const METADATA_LIMITS = { maxKeys: 20, maxKeyLength: 50, maxValueLength: 255 } as const;

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

const Fields = {
  merchant_acquirer_bin: () => Text(50, 'BIN of the acquirer, sent to the 3DS server'),
  merchant_acquirer_id: () => Text(50, 'Merchant identifier assigned by the acquirer'),
  merchant_name: () => Text(200),
  merchant_country_code: () =>
    Type.String({ pattern: '^[0-9]{3}$', description: 'ISO 3166-1 numeric country code', examples: ['840'] }),
  merchant_category_code: () =>
    Type.String({ pattern: '^[0-9]{4}$', description: 'Merchant category code (MCC)', examples: ['5999'] }),
  merchant_url: () => Text(2048),
  scheme: () =>
    Type.String({ pattern: CARD_SCHEME_PATTERN, maxLength: 50, description: 'Card scheme', examples: ['visa'] }),
  currency: () => Currency({ description: 'ISO 4217 currency code; null or absent: applies to every currency' }),
  metadata: () =>
    Type.Record(Type.String(), Type.String({ maxLength: METADATA_LIMITS.maxValueLength }), {
      maxProperties: METADATA_LIMITS.maxKeys,
      propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.maxKeyLength },
      description: `String map: at most ${METADATA_LIMITS.maxKeys} keys of 1 to ${METADATA_LIMITS.maxKeyLength} characters, values of at most ${METADATA_LIMITS.maxValueLength}`,
    }),
};

export const CreateThreeDsConfigurationBody = Type.Object(
  {
    merchant_acquirer_bin: Fields.merchant_acquirer_bin(),
    merchant_acquirer_id: Fields.merchant_acquirer_id(),
    merchant_name: Fields.merchant_name(),
    merchant_country_code: Fields.merchant_country_code(),
    merchant_category_code: Fields.merchant_category_code(),
    merchant_url: Fields.merchant_url(),
    scheme: Fields.scheme(),
    currency: Type.Optional(Nullable(Fields.currency())),
    metadata: Fields.metadata(),
  },
  { additionalProperties: false },
);
export type CreateThreeDsConfigurationBody = Static<typeof CreateThreeDsConfigurationBody>;

/** Every field is optional and nullable as in the public model; the service refuses null where the resource requires a value. */
export const UpdateThreeDsConfigurationBody = Type.Object(
  {
    merchant_acquirer_bin: Type.Optional(Nullable(Fields.merchant_acquirer_bin())),
    merchant_acquirer_id: Type.Optional(Nullable(Fields.merchant_acquirer_id())),
    merchant_name: Type.Optional(Nullable(Fields.merchant_name())),
    merchant_country_code: Type.Optional(Nullable(Fields.merchant_country_code())),
    merchant_category_code: Type.Optional(Nullable(Fields.merchant_category_code())),
    merchant_url: Type.Optional(Nullable(Fields.merchant_url())),
    scheme: Type.Optional(Nullable(Fields.scheme())),
    currency: Type.Optional(Nullable(Fields.currency())),
    metadata: Type.Optional(Nullable(Fields.metadata())),
  },
  { additionalProperties: false },
);
export type UpdateThreeDsConfigurationBody = Static<typeof UpdateThreeDsConfigurationBody>;

export const ThreeDsConfigurationsParams = Type.Object({ merchant_account_id: MerchantAccountIdSchema });

export const ThreeDsConfigurationParams = Type.Object({
  merchant_account_id: MerchantAccountIdSchema,
  three_ds_configuration_id: Uuid({ description: 'ID of the 3DS configuration' }),
});

export const ListThreeDsConfigurationsQuery = Type.Object({
  currency: Type.Optional(
    Nullable(Type.String({ pattern: '^[A-Z]{3}$', description: 'Only configurations of this currency (exact match)' })),
  ),
});
export type ListThreeDsConfigurationsQuery = Static<typeof ListThreeDsConfigurationsQuery>;

export const ThreeDsConfigurationSchema = Type.Object(
  {
    type: Type.Literal(THREE_DS_CONFIGURATION_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    scheme: Type.String(),
    currency: Nullable(Type.String()),
    merchant_acquirer_bin: Type.String(),
    merchant_acquirer_id: Type.String(),
    merchant_name: Type.String(),
    merchant_country_code: Type.String(),
    merchant_category_code: Type.String(),
    merchant_url: Type.String(),
    metadata: Type.Record(Type.String(), Type.String()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'MerchantAccountThreeDSConfiguration' },
);
export type ThreeDsConfiguration = Static<typeof ThreeDsConfigurationSchema>;

export const ThreeDsConfigurationsSchema = ItemList(ThreeDsConfigurationSchema, 'MerchantAccountThreeDSConfigurations');

export function toThreeDsConfigurationResource(row: ThreeDsConfigurationRow): ThreeDsConfiguration {
  return {
    type: THREE_DS_CONFIGURATION_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    scheme: row.scheme,
    currency: row.currency,
    merchant_acquirer_bin: row.merchant_acquirer_bin,
    merchant_acquirer_id: row.merchant_acquirer_id,
    merchant_name: row.merchant_name,
    merchant_country_code: row.merchant_country_code,
    merchant_category_code: row.merchant_category_code,
    merchant_url: row.merchant_url,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
