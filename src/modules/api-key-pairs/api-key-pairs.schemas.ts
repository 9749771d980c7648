import { Type, type Static } from 'typebox';
import type { ApiKeyPairRow } from '../../db/schema.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { MerchantAccountIdSchema } from '../merchant-accounts/merchant-accounts.schemas.ts';
import { isRoleSlug } from '../roles/roles.catalogue.ts';
import { RoleSchema, toRoleResource } from '../roles/roles.schemas.ts';

const DisplayName = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'A name for people, e.g. the system that holds the private key',
});

/** Loose on purpose: a key of another type must reach the service, which answers 400 naming ES512. */
const PublicKeyInput = Type.Union(
  [
    Type.String({ minLength: 1, maxLength: 4000, description: 'PEM SPKI public key (-----BEGIN PUBLIC KEY-----)' }),
    Type.Object(
      {
        kty: Type.String({ description: '`EC`' }),
        crv: Type.Optional(Type.String({ description: '`P-521`' })),
        x: Type.Optional(Type.String({ maxLength: 200 })),
        y: Type.Optional(Type.String({ maxLength: 200 })),
      },
      // Other JWK members (kid, use, alg) are ignored; a private member (d) is refused.
      { additionalProperties: true, description: 'Public JWK: {kty: "EC", crv: "P-521", x, y}' },
    ),
  ],
  {
    description:
      'Register this public key instead of having the server generate a key pair. Only ES512 (ECDSA P-521) keys.',
  },
);

export const CreateApiKeyPairBody = Type.Object(
  {
    display_name: DisplayName,
    merchant_account_id: Type.Optional(
      Nullable({
        ...MerchantAccountIdSchema,
        description:
          'Limit the pair to this merchant account; null or absent: every account (a caller limited to one account: that account)',
      }),
    ),
    public_key: Type.Optional(PublicKeyInput),
    role_ids: Type.Optional(
      Type.Array(Uuid(), {
        minItems: 1,
        maxItems: 20,
        uniqueItems: true,
        description:
          "Ids of roles (GET /roles): the pair's tokens get at most these roles' scopes, whatever they claim. Only roles whose scopes the caller holds. Absent: no roles, a token has the scopes it claims",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyPairBody = Static<typeof CreateApiKeyPairBody>;

export const UpdateApiKeyPairBody = Type.Object(
  {
    display_name: Type.Optional(DisplayName),
    active: Type.Optional(
      Type.Boolean({
        description: 'false revokes the pair (its tokens are refused at once); true enables a revoked pair again',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateApiKeyPairBody = Static<typeof UpdateApiKeyPairBody>;

export const ApiKeyPairParams = Type.Object({
  api_key_pair_id: Type.String({
    pattern: '^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9_-]{43})$',
    description: 'The id of the key pair, or its kid (JWK thumbprint)',
  }),
});

export const ListApiKeyPairsQuery = Type.Object(PaginationQuery);
export type ListApiKeyPairsQuery = Static<typeof ListApiKeyPairsQuery>;

export const PublicJwkSchema = Type.Object(
  { kty: Type.Literal('EC'), crv: Type.Literal('P-521'), x: Type.String(), y: Type.String() },
  { additionalProperties: false, title: 'ApiKeyPairPublicKey' },
);

export const ApiKeyPairSchema = Type.Object(
  {
    type: Type.Literal('api-key-pair'),
    id: Uuid(),
    thumbprint: Type.String({
      description:
        'RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key: the `kid` header of every token signed with the pair',
      examples: ['va-SLs5AxJNfqKXD8LI5Y38BflpNvjZjY4RSWz66U1w'],
    }),
    kid: Type.String({
      description:
        'The same value as thumbprint, under the name of the header it goes in (kept for clients written before thumbprint)',
    }),
    algorithm: StringEnum(['ECDSA', 'RSA'] as const, {
      description: 'The key type: always ECDSA (curve P-521; tokens are signed ES512). RSA keys are not accepted',
    }),
    display_name: Type.String(),
    merchant_account_id: Nullable(
      Type.String({ description: 'The one merchant account the pair may act on; null: every account' }),
    ),
    active: Type.Boolean(),
    public_key: PublicJwkSchema,
    private_key: Nullable(
      Type.String({
        description:
          'PKCS#8 PEM private key: only in the response that generated it, never stored and never shown again; null otherwise',
      }),
    ),
    created_at: DateTime(),
    updated_at: DateTime(),
    revoked_at: Nullable(DateTime({ description: 'When the pair was last revoked; null while active' })),
    roles: Type.Array(RoleSchema, { description: "The pair's roles; empty: its tokens have the scopes they claim" }),
  },
  { additionalProperties: false, title: 'ApiKeyPair' },
);
export type ApiKeyPair = Static<typeof ApiKeyPairSchema>;

export const ApiKeyPairsSchema = ListEnvelope(ApiKeyPairSchema, 'ApiKeyPairs');

/** The only way a row becomes a response. `privateKeyPem` is given by the create operation alone. */
export function toApiKeyPairResource(row: ApiKeyPairRow, privateKeyPem: string | null = null): ApiKeyPair {
  const jwk = row.public_jwk;
  return {
    type: 'api-key-pair',
    id: row.id,
    thumbprint: row.thumbprint,
    kid: row.thumbprint,
    algorithm: 'ECDSA',
    display_name: row.display_name,
    merchant_account_id: row.merchant_account_id,
    active: row.active,
    public_key: { kty: 'EC', crv: 'P-521', x: jwk.x!, y: jwk.y! },
    private_key: privateKeyPem,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    roles: (row.role_slugs ?? []).filter(isRoleSlug).map(toRoleResource),
  };
}
