import { Type, type Static } from 'typebox';
import type { AntiFraudServiceRow } from '../../db/schema-anti-fraud.ts';
import { DateTime, Uuid } from '../../http/schemas/common.ts';

export const ANTI_FRAUD_SERVICE_TYPE = 'anti-fraud-service';

const FieldSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 50 }),
    value: Type.String({ maxLength: 5000 }),
  },
  { additionalProperties: false },
);

export const AntiFraudServiceSchema = Type.Object(
  {
    type: Type.Literal(ANTI_FRAUD_SERVICE_TYPE),
    id: Type.String(),
    merchant_account_id: Type.String(),
    anti_fraud_service_definition_id: Type.String({ description: 'The service: riskified-anti-fraud, ...' }),
    display_name: Type.String(),
    active: Type.Boolean({ description: 'Every payment of the account asks its one active service' }),
    fields: Type.Array(FieldSchema, {
      description: 'The settings that are not secret; secret credentials are stored sealed and never returned',
    }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'AntiFraudService' },
);
export type AntiFraudService = Static<typeof AntiFraudServiceSchema>;

export const CreateAntiFraudServiceBody = Type.Object(
  {
    anti_fraud_service_definition_id: Type.String({ minLength: 1, maxLength: 50 }),
    display_name: Type.String({ minLength: 1, maxLength: 200 }),
    active: Type.Optional(Type.Boolean({ default: true })),
    fields: Type.Array(FieldSchema, { maxItems: 20, description: "The definition's credentials and settings" }),
  },
  { additionalProperties: false },
);
export type CreateAntiFraudServiceBody = Static<typeof CreateAntiFraudServiceBody>;

export const AntiFraudServiceParams = Type.Object({ anti_fraud_service_id: Uuid() });

/** The only way a row becomes a response: `sealed_fields` is never read here. */
export function toAntiFraudServiceResource(row: AntiFraudServiceRow): AntiFraudService {
  return {
    type: ANTI_FRAUD_SERVICE_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    anti_fraud_service_definition_id: row.anti_fraud_service_definition_id,
    display_name: row.display_name,
    active: row.active,
    fields: Object.entries(row.fields)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const antiFraudAuditResource = (row: AntiFraudServiceRow) => ({
  type: ANTI_FRAUD_SERVICE_TYPE,
  id: row.id,
  name: row.display_name,
});
