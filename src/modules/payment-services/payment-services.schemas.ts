import { Type, type Static } from 'typebox';
import type { MerchantProfileSchemeJson, PaymentServiceRow } from '../../db/schema.ts';
import {
  Country,
  Currency,
  DateTime,
  Defaulted,
  ListEnvelope,
  Nullable,
  PaginationQuery,
  StringEnum,
  Uuid,
} from '../../http/schemas/common.ts';
import { CARD_SCHEME_PATTERN } from '../../lib/card-schemes.ts';
import { DefinitionId } from '../payment-service-definitions/payment-service-definitions.schemas.ts';

export const PAYMENT_SERVICE_TYPE = 'payment-service';

/** Enough for any provider's key set; small enough to verify and seal in one request. */
export const FIELD_LIMITS = { maxFields: 50, maxKeyLength: 100, maxValueLength: 10_000 } as const;

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

/** A credential or reporting field value. Values are strings on the wire, whatever the format. */
const FieldSchema = (title: string) =>
  Type.Object(
    { key: Text(FIELD_LIMITS.maxKeyLength), value: Type.String({ maxLength: FIELD_LIMITS.maxValueLength }) },
    { additionalProperties: false, title },
  );
const FieldList = (title: string, description: string) =>
  Type.Array(FieldSchema(title), { maxItems: FIELD_LIMITS.maxFields, description });

const MethodName = () =>
  Type.String({
    minLength: 1,
    maxLength: 50,
    pattern: '^[a-z0-9]+([_-][a-z0-9]+)*$',
    description: 'Payment method',
    examples: ['card'],
  });

const Currencies = () =>
  Type.Array(Currency(), {
    minItems: 1,
    maxItems: 300,
    uniqueItems: true,
    description: 'ISO 4217 currency codes the service accepts',
  });
const Countries = () =>
  Type.Array(Country(), {
    minItems: 1,
    maxItems: 300,
    uniqueItems: true,
    description: 'ISO 3166-1 alpha-2 country codes the service accepts',
  });

const MerchantProfileFields = {
  merchant_acquirer_bin: Text(50),
  merchant_acquirer_id: Text(50),
  merchant_name: Text(200),
  merchant_country_code: Type.String({
    pattern: '^[0-9]{3}$',
    description: 'ISO 3166-1 numeric country code',
    examples: ['840'],
  }),
  merchant_category_code: Type.String({
    pattern: '^[0-9]{4}$',
    description: 'Merchant category code (MCC)',
    examples: ['5999'],
  }),
  merchant_url: Text(2048),
};
const MerchantProfileSchemeSchema = Type.Object(MerchantProfileFields, {
  additionalProperties: false,
  title: 'MerchantProfileScheme',
});
export type MerchantProfileScheme = Static<typeof MerchantProfileSchemeSchema>;

/** Keyed by card scheme; a null value removes that scheme's profile. */
const MerchantProfile = () =>
  Type.Record(Type.String(), Nullable(MerchantProfileSchemeSchema), {
    maxProperties: 30,
    propertyNames: { pattern: CARD_SCHEME_PATTERN, maxLength: 50 },
    description: 'Merchant profile per card scheme (for 3DS); a null value removes a scheme',
  });

const Position = () =>
  Type.Integer({
    minimum: 0,
    maximum: 2_147_483_647,
    description:
      'Routing order among the services of the merchant account (lowest first); default: after the last one of the same method',
  });

export const CreatePaymentServiceBody = Type.Object(
  {
    display_name: Text(200),
    payment_service_definition_id: DefinitionId(),
    fields: FieldList('Field', 'Credential fields of the definition, as key/value pairs'),
    reporting_fields: Type.Optional(Nullable(FieldList('Field', 'Reporting fields of the definition'))),
    position: Type.Optional(Nullable(Position())),
    accepted_currencies: Currencies(),
    accepted_countries: Countries(),
    active: Type.Optional(Nullable(Type.Boolean({ default: true }))),
    three_d_secure_enabled: Type.Optional(Type.Boolean({ default: false })),
    merchant_profile: Type.Optional(Nullable(MerchantProfile())),
    payment_method_tokenization_enabled: Type.Optional(Nullable(Type.Boolean())),
    network_tokens_enabled: Type.Optional(Nullable(Type.Boolean())),
    open_loop: Type.Optional(Nullable(Type.Boolean())),
    settlement_reporting_enabled: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false, title: 'PaymentServiceCreate' },
);
export type CreatePaymentServiceBody = Static<typeof CreatePaymentServiceBody>;

/** Partial update: absent or null keeps a value, except `merchant_profile` (null clears it). */
export const UpdatePaymentServiceBody = Type.Object(
  {
    display_name: Type.Optional(Nullable(Text(200))),
    fields: Type.Optional(
      Nullable(
        FieldList(
          'VoidableField',
          'Credential fields to change, merged key by key; an empty value removes an optional field',
        ),
      ),
    ),
    reporting_fields: Type.Optional(
      Nullable(FieldList('VoidableField', 'Reporting fields to change, merged key by key')),
    ),
    position: Type.Optional(Nullable(Position())),
    accepted_currencies: Type.Optional(Nullable(Currencies())),
    accepted_countries: Type.Optional(Nullable(Countries())),
    active: Type.Optional(Nullable(Type.Boolean())),
    three_d_secure_enabled: Type.Optional(Nullable(Type.Boolean())),
    merchant_profile: Type.Optional(Nullable(MerchantProfile())),
    payment_method_tokenization_enabled: Type.Optional(Nullable(Type.Boolean())),
    network_tokens_enabled: Type.Optional(Nullable(Type.Boolean())),
    open_loop: Type.Optional(Nullable(Type.Boolean())),
    settlement_reporting_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'PaymentServiceUpdate' },
);
export type UpdatePaymentServiceBody = Static<typeof UpdatePaymentServiceBody>;

export const VerifyCredentialsBody = Type.Object(
  {
    payment_service_definition_id: DefinitionId(),
    payment_service_id: Type.Optional(
      Nullable(Uuid({ description: 'When given, the fields are merged with the stored ones before verifying' })),
    ),
    fields: FieldList('Field', 'Credential fields to verify'),
  },
  { additionalProperties: false, title: 'VerifyCredentials' },
);
export type VerifyCredentialsBody = Static<typeof VerifyCredentialsBody>;

export const VerifyCredentialsResult = Type.Object(
  {},
  {
    additionalProperties: false,
    description: 'Empty: the credentials passed the check (a failure answers 400 naming each field at fault)',
  },
);

export const PaymentServiceParams = Type.Object({
  payment_service_id: Uuid({ description: 'ID of the payment service' }),
});

export const ListPaymentServicesQuery = Type.Object({
  ...PaginationQuery,
  method: Type.Optional(Nullable(MethodName())),
  deleted: Defaulted(
    Type.Boolean({
      default: false,
      description: 'true: only deleted services; false (default): only services not deleted',
    }),
  ),
});
export type ListPaymentServicesQuery = Static<typeof ListPaymentServicesQuery>;

const FieldOut = Type.Object(
  { key: Type.String(), value: Type.String() },
  { additionalProperties: false, title: 'Field' },
);

const MerchantProfileSchemeSummarySchema = Type.Object(
  {
    ...Object.fromEntries(Object.keys(MerchantProfileFields).map((key) => [key, Type.String()])),
    created_at: DateTime(),
  },
  { additionalProperties: false, title: 'MerchantProfileSchemeSummary' },
);

export const PaymentServiceSchema = Type.Object(
  {
    type: Type.Literal(PAYMENT_SERVICE_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    payment_service_definition_id: Type.String(),
    active: Type.Boolean(),
    method: Type.String(),
    display_name: Type.String(),
    position: Type.Integer(),
    status: StringEnum(['pending', 'created', 'failed'] as const),
    accepted_currencies: Type.Array(Type.String()),
    accepted_countries: Type.Array(Type.String()),
    payment_method_tokenization_enabled: Type.Boolean(),
    network_tokens_enabled: Type.Boolean(),
    open_loop: Type.Boolean(),
    settlement_reporting_enabled: Type.Boolean(),
    three_d_secure_enabled: Nullable(Type.Boolean()),
    merchant_profile: Nullable(Type.Record(Type.String(), Nullable(MerchantProfileSchemeSummarySchema))),
    webhook_url: Nullable(Type.String()),
    fields: Nullable(
      Type.Array(FieldOut, { description: 'Non-secret credential fields only; secret ones are left out' }),
    ),
    reporting_fields: Nullable(Type.Array(FieldOut, { description: 'Non-secret reporting fields only' })),
    is_deleted: Type.Boolean(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'PaymentService' },
);
export type PaymentService = Static<typeof PaymentServiceSchema>;

export const PaymentServicesSchema = ListEnvelope(PaymentServiceSchema, 'PaymentServices');

const asFieldList = (values: Record<string, string>) =>
  Object.entries(values)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));

/**
 * The only way a payment service row becomes a response. Rows hold secret values in
 * `sealed_fields` only, which is never read here, so no secret can reach a response.
 */
export function toPaymentServiceResource(row: PaymentServiceRow): PaymentService {
  return {
    type: PAYMENT_SERVICE_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    payment_service_definition_id: row.payment_service_definition_id,
    active: row.active,
    method: row.method,
    display_name: row.display_name,
    position: row.position,
    status: row.status,
    accepted_currencies: row.accepted_currencies,
    accepted_countries: row.accepted_countries,
    payment_method_tokenization_enabled: row.payment_method_tokenization_enabled,
    network_tokens_enabled: row.network_tokens_enabled,
    open_loop: row.open_loop,
    settlement_reporting_enabled: row.settlement_reporting_enabled,
    three_d_secure_enabled: row.three_d_secure_enabled,
    merchant_profile: row.merchant_profile as Record<string, MerchantProfileSchemeJson> | null,
    // This server receives no provider webhooks per payment service yet.
    webhook_url: null,
    fields: asFieldList(row.fields),
    reporting_fields: asFieldList(row.reporting_fields),
    is_deleted: row.is_deleted,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** How a payment service is named in audit entries: its display name, never a field value. */
export function paymentServiceAuditResource(row: PaymentServiceRow): { type: string; id: string; name: string } {
  return { type: PAYMENT_SERVICE_TYPE, id: row.id, name: row.display_name };
}
