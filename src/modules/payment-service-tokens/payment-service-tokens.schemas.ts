import { Type, type Static } from 'typebox';
import type { PaymentServiceTokenRow } from '../../db/schema-payment-service-tokens.ts';
import { DateTime, ItemList, Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';

/** The PaymentMethodStatus enum of the spec; `paused` is never produced here. */
export const PAYMENT_SERVICE_TOKEN_STATUSES = [
  'processing',
  'buyer_approval_required',
  'succeeded',
  'failed',
  'paused',
] as const;

export const PaymentServiceTokenCreateBody = Type.Object(
  {
    payment_service_id: Uuid({
      description: 'The payment service (with payment_method_tokenization_enabled) to create the token at',
    }),
    redirect_url: Type.String({
      minLength: 1,
      maxLength: 2000,
      format: 'uri',
      description: 'Where the buyer returns after an approval step, when the provider asks for one',
    }),
    security_code: Type.Optional(
      Nullable(
        Type.String({
          minLength: 3,
          maxLength: 4,
          pattern: '^\\d{3,4}$',
          description: 'Passed to the provider for this call only; never stored, never logged',
        }),
      ),
    ),
  },
  { additionalProperties: false, title: 'PaymentServiceTokenCreate' },
);
export type PaymentServiceTokenCreateBody = Static<typeof PaymentServiceTokenCreateBody>;

export const PaymentServiceTokensParams = Type.Object({ payment_method_id: Uuid() });
export const PaymentServiceTokenParams = Type.Object({ payment_method_id: Uuid(), payment_service_token_id: Uuid() });
export const ListPaymentServiceTokensQuery = Type.Object(
  {
    payment_service_id: Type.Optional(Uuid({ description: 'Restricts the list to the token at this payment service' })),
  },
  { additionalProperties: false },
);
export type ListPaymentServiceTokensQuery = Static<typeof ListPaymentServiceTokensQuery>;

export const PaymentServiceTokenSchema = Type.Object(
  {
    type: Type.Literal('payment-service-token'),
    id: Uuid(),
    approval_url: Nullable(
      Type.String({
        description: 'Where to send the buyer to approve the token creation (status buyer_approval_required)',
      }),
    ),
    payment_method_id: Uuid(),
    payment_service_id: Uuid(),
    status: StringEnum(PAYMENT_SERVICE_TOKEN_STATUSES),
    token: Nullable(Type.String({ description: 'The token at the payment service, once provisioning succeeded' })),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'PaymentServiceToken' },
);
export type PaymentServiceToken = Static<typeof PaymentServiceTokenSchema>;

export const PaymentServiceTokensSchema = ItemList(PaymentServiceTokenSchema, 'PaymentServiceTokens');

/** The resource of a row; `token` is its decrypted value (null until it succeeds). */
export function toPaymentServiceTokenResource(row: PaymentServiceTokenRow, token: string | null): PaymentServiceToken {
  return {
    type: 'payment-service-token',
    id: row.id,
    approval_url: row.approval_url,
    payment_method_id: row.payment_method_id,
    payment_service_id: row.payment_service_id,
    status: row.status,
    token,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
