import { Type, type Static } from 'typebox';
import type { NetworkTokenRow } from '../../db/schema.ts';
import { DateTime, ItemList, Nullable, StringEnum } from '../../http/schemas/common.ts';
import { NETWORK_TOKEN_STATUSES } from './network-token-status.ts';

export const NetworkTokenCreateBody = Type.Object(
  {
    merchant_initiated: Type.Boolean({
      description: 'Whether the payments this token will serve are merchant-initiated',
    }),
    is_subsequent_payment: Type.Boolean({ description: 'Whether they follow an earlier payment with the same card' }),
    security_code: Type.Optional(
      Nullable(
        Type.String({
          minLength: 3,
          maxLength: 4,
          pattern: '^\\d+$',
          description: 'Passed to the token service for this call only; never stored, never logged',
        }),
      ),
    ),
  },
  { additionalProperties: false, title: 'NetworkTokenCreate' },
);
export type NetworkTokenCreateBody = Static<typeof NetworkTokenCreateBody>;

export const CryptogramCreateBody = Type.Object(
  {
    merchant_initiated: Type.Boolean({
      description: 'Whether the transaction the cryptogram is for is merchant-initiated',
    }),
  },
  { additionalProperties: false, title: 'CryptogramCreate' },
);
export type CryptogramCreateBody = Static<typeof CryptogramCreateBody>;

export const PaymentMethodNetworkTokensParams = Type.Object({ payment_method_id: Type.String({ format: 'uuid' }) });
export const NetworkTokenParams = Type.Object({
  payment_method_id: Type.String({ format: 'uuid' }),
  network_token_id: Type.String({ format: 'uuid' }),
});

export const NetworkTokenSchema = Type.Object(
  {
    type: Type.Literal('network-token'),
    id: Type.String({ format: 'uuid' }),
    payment_method_id: Type.String({ format: 'uuid' }),
    status: StringEnum(NETWORK_TOKEN_STATUSES),
    token: Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        'The token number. Once the token is deleted its value is destroyed and this reads `****` and its last 4 digits.',
    }),
    expiration_date: Type.String({ minLength: 5, maxLength: 5, pattern: '^\\d{2}/\\d{2}$' }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'NetworkToken' },
);
export type NetworkToken = Static<typeof NetworkTokenSchema>;

export const NetworkTokensSchema = ItemList(NetworkTokenSchema, 'NetworkTokens');

export const CryptogramSchema = Type.Object(
  {
    type: Type.Literal('network-token-cryptogram'),
    cryptogram: Type.String({
      description: 'A one-time cryptogram (28 characters of base64) for one transaction with this token',
    }),
  },
  { additionalProperties: false, title: 'Cryptogram' },
);
export type Cryptogram = Static<typeof CryptogramSchema>;

/** The resource of a token; `token` is its decrypted value, or null once destroyed. */
export function toNetworkTokenResource(row: NetworkTokenRow, token: string | null): NetworkToken {
  return {
    type: 'network-token',
    id: row.id,
    payment_method_id: row.payment_method_id,
    status: row.status,
    token: token ?? `****${row.token_last4}`,
    expiration_date: row.expiration_date,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
