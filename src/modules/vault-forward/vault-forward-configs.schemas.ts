import { Type, type Static } from 'typebox';
import type { VaultForwardAuthenticationRow, VaultForwardConfigRow } from '../../db/schema-vault-forward.ts';
import {
  DateTime,
  ItemList,
  ListEnvelope,
  Nullable,
  PaginationQuery,
  StringEnum,
  Uuid,
} from '../../http/schemas/common.ts';
import { AUTHENTICATION_DEFINITIONS, FORWARD_DEFINITIONS, type ForwardDefinition } from './definitions.ts';

export const CONFIG_TYPE = 'vault-forward-config';
export const AUTHENTICATION_TYPE = 'vault-forward-config-authentication';
export const KINDS = ['mle', 'mtls', 'signature'] as const;
/** Bounds that keep a config and a forward's preparation small. */
export const LIMITS = { hostsPerConfig: 20, authenticationsPerConfig: 20, fields: 20, valueLength: 20_000 } as const;

const Kind = () =>
  StringEnum(KINDS, {
    description: 'mle: message-level encryption (JWE); mtls: mutual TLS; signature: HMAC-SHA256 request signing',
  });

// ---- definitions ----

const DefinitionFieldSchema = Type.Object(
  {
    key: Type.String(),
    display_name: Type.String(),
    required: Type.Boolean(),
    format: StringEnum(['text', 'multiline', 'file', 'number'] as const),
    secret: Type.Boolean({ description: 'Stored encrypted and never returned' }),
  },
  { additionalProperties: false, title: 'VaultForwardAuthenticationDefinitionField' },
);

const AuthenticationDefinitionSchema = Type.Object(
  {
    type: Type.Literal('vault-forward-authentication-definition'),
    kind: Kind(),
    title: Type.String(),
    description: Type.String(),
    fields: Type.Array(DefinitionFieldSchema),
  },
  { additionalProperties: false, title: 'VaultForwardAuthenticationDefinition' },
);

export const DefinitionSchema = Type.Object(
  {
    type: Type.Literal('vault-forward-definition'),
    id: Type.String({ examples: ['amadeus'] }),
    display_name: Type.String(),
    hosts: Type.Array(Type.String(), {
      description:
        "Hosts a config of this definition allows (`*.example.com`: any subdomain); empty for `custom`, whose config lists the merchant's",
    }),
    authentications: Type.Array(AuthenticationDefinitionSchema),
  },
  { additionalProperties: false, title: 'VaultForwardDefinition' },
);
export type Definition = Static<typeof DefinitionSchema>;
export const DefinitionsSchema = ItemList(DefinitionSchema, 'VaultForwardDefinitions');

const authenticationDefinitions = AUTHENTICATION_DEFINITIONS.map((a) => ({
  type: 'vault-forward-authentication-definition' as const,
  kind: a.kind,
  title: a.title,
  description: a.description,
  fields: a.fields.map(({ key, display_name, required, format, secret }) => ({
    key,
    display_name,
    required,
    format,
    secret,
  })),
}));

export const toDefinitionResource = (d: ForwardDefinition): Definition => ({
  type: 'vault-forward-definition',
  id: d.id,
  display_name: d.display_name,
  hosts: [...d.hosts],
  authentications: authenticationDefinitions,
});
export const DEFINITION_IDS = FORWARD_DEFINITIONS.map((d) => d.id);

// ---- authentications ----

const FieldIn = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 100 }), value: Type.String({ maxLength: LIMITS.valueLength }) },
  { additionalProperties: false, title: 'VaultForwardAuthenticationFieldInput' },
);
const FieldOut = Type.Object(
  { key: Type.String(), value: Type.String() },
  { additionalProperties: false, title: 'VaultForwardAuthenticationField' },
);
const DisplayName = () => Type.String({ minLength: 1, maxLength: 200 });

export const CreateAuthenticationBody = Type.Object(
  {
    kind: Kind(),
    display_name: DisplayName(),
    fields: Type.Array(FieldIn, {
      maxItems: LIMITS.fields,
      description:
        'The fields of the kind (GET /vault-forward/definitions); secret ones are stored encrypted and never returned',
    }),
  },
  { additionalProperties: false, title: 'VaultForwardAuthenticationCreate' },
);
export type CreateAuthenticationBody = Static<typeof CreateAuthenticationBody>;

export const UpdateAuthenticationBody = Type.Object(
  {
    display_name: Type.Optional(DisplayName()),
    fields: Type.Optional(
      Type.Array(FieldIn, {
        maxItems: LIMITS.fields,
        description: 'Fields to change, merged key by key; `value: ""` unsets an optional field',
      }),
    ),
  },
  { additionalProperties: false, title: 'VaultForwardAuthenticationUpdate' },
);
export type UpdateAuthenticationBody = Static<typeof UpdateAuthenticationBody>;

const CreatorSchema = Type.Object(
  {
    id: Uuid({ description: 'The API key pair that created it' }),
    name: Type.String(),
    email_address: Nullable(Type.String({ description: 'Always null: API key pairs have no e-mail address' })),
  },
  { additionalProperties: false, title: 'VaultForwardCreator' },
);

export const AuthenticationSchema = Type.Object(
  {
    type: Type.Literal(AUTHENTICATION_TYPE),
    id: Uuid(),
    created_at: DateTime(),
    updated_at: DateTime(),
    kind: Kind(),
    label: Type.String({
      description: 'A hint that is no secret: the key id, the certificate subject and expiry, or the algorithms',
    }),
    display_name: Type.String(),
    fields: Type.Array(FieldOut, { description: 'Fields marked as secret are not returned' }),
    creator: Nullable(CreatorSchema),
  },
  { additionalProperties: false, title: 'VaultForwardConfigAuthentication' },
);
export type Authentication = Static<typeof AuthenticationSchema>;
export const AuthenticationsSchema = ItemList(AuthenticationSchema, 'VaultForwardConfigAuthentications');

export function toAuthenticationResource(row: VaultForwardAuthenticationRow): Authentication {
  return {
    type: AUTHENTICATION_TYPE,
    id: row.id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    kind: row.kind,
    label: row.label,
    display_name: row.display_name,
    fields: Object.entries(row.fields).map(([key, value]) => ({ key, value })),
    creator: row.creator,
  };
}

// ---- configs ----

export const CreateConfigBody = Type.Object(
  {
    definition_id: Type.String({ minLength: 1, maxLength: 50, description: `One of ${DEFINITION_IDS.join(', ')}` }),
    display_name: Type.Optional(DisplayName()),
    hosts: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
        minItems: 1,
        maxItems: LIMITS.hostsPerConfig,
        uniqueItems: true,
        description:
          "The `custom` definition only (required there): the merchant's hosts, exact names or `*.example.com`",
      }),
    ),
  },
  { additionalProperties: false, title: 'VaultForwardConfigCreate' },
);
export type CreateConfigBody = Static<typeof CreateConfigBody>;

export const ConfigParams = Type.Object({ config_id: Uuid({ description: 'ID of the vault forward config' }) });
export const AuthenticationParams = Type.Object({
  config_id: Uuid({ description: 'ID of the vault forward config' }),
  authentication_id: Uuid({ description: 'ID of the authentication method' }),
});
export const ListConfigsQuery = Type.Object({ ...PaginationQuery });
export type ListConfigsQuery = Static<typeof ListConfigsQuery>;

export const ConfigSchema = Type.Object(
  {
    type: Type.Literal(CONFIG_TYPE),
    id: Uuid(),
    created_at: DateTime(),
    updated_at: DateTime(),
    merchant_account_id: Type.String(),
    definition_id: Type.String(),
    display_name: Type.String(),
    hosts: Type.Array(Type.String(), {
      description:
        'Hosts this config allows as vault forwarding targets in production (with VAULT_FORWARD_ALLOWED_HOSTS as the ceiling)',
    }),
    authentications: Type.Array(AuthenticationSchema),
    creator: Nullable(CreatorSchema),
  },
  { additionalProperties: false, title: 'VaultForwardConfig' },
);
export type Config = Static<typeof ConfigSchema>;
export const ConfigsSchema = ListEnvelope(ConfigSchema, 'VaultForwardConfigs');

/** The hosts a config allows: its own (custom) or its definition's. */
export const hostsOf = (row: VaultForwardConfigRow): string[] =>
  row.hosts ?? FORWARD_DEFINITIONS.find((d) => d.id === row.definition_id)?.hosts ?? [];

export function toConfigResource(
  row: VaultForwardConfigRow,
  authentications: readonly VaultForwardAuthenticationRow[],
): Config {
  return {
    type: CONFIG_TYPE,
    id: row.id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    merchant_account_id: row.merchant_account_id,
    definition_id: row.definition_id,
    display_name: row.display_name,
    hosts: hostsOf(row),
    authentications: authentications.map(toAuthenticationResource),
    creator: row.creator,
  };
}
