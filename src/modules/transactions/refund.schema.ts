import { Type, type Static } from 'typebox';
import type { RefundRow } from '../../db/schema-transactions.ts';
import { DateTime, ItemList, MinorUnits, NullableOut, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { uuidToBase62 } from '../../lib/base62.ts';

export const CreateRefundBody = Type.Object(
  {
    amount: Type.Optional(
      NullableOut(
        MinorUnits({
          minimum: 1,
          maximum: 99999999,
          description: 'Minor currency units; omitted: everything captured and not yet refunded',
        }),
      ),
    ),
    target_type: Type.Optional(StringEnum(['payment-method', 'gift-card-redemption'] as const)),
    target_id: Type.Optional(NullableOut(Type.String({ format: 'uuid' }))),
    reason: Type.Optional(NullableOut(Type.String({ maxLength: 500 }))),
    external_identifier: Type.Optional(NullableOut(Type.String({ minLength: 1, maxLength: 200 }))),
  },
  { additionalProperties: false, title: 'TransactionRefundCreate' },
);
export type CreateRefundBody = Static<typeof CreateRefundBody>;

export const RefundAllBody = Type.Object(
  {
    reason: Type.Optional(NullableOut(Type.String({ maxLength: 500 }))),
    external_identifier: Type.Optional(NullableOut(Type.String({ minLength: 1, maxLength: 200 }))),
  },
  { additionalProperties: false, title: 'TransactionRefundAllCreate' },
);
export type RefundAllBody = Static<typeof RefundAllBody>;

export const RefundSchema = Type.Object(
  {
    type: Type.Literal('refund'),
    id: Uuid(),
    transaction_id: Uuid(),
    payment_service_refund_id: NullableOut(Type.String()),
    status: StringEnum(['processing', 'succeeded', 'failed', 'declined', 'voided'] as const),
    currency: Type.String(),
    amount: Type.Integer(),
    reason: NullableOut(Type.String()),
    target_type: StringEnum(['payment-method', 'gift-card-redemption'] as const),
    target_id: NullableOut(Type.String()),
    reconciliation_id: Type.String(),
    external_identifier: NullableOut(Type.String()),
    transaction_reconciliation_id: Type.String(),
    transaction_external_identifier: NullableOut(Type.String()),
    created_at: DateTime(),
    updated_at: DateTime(),
    creator: NullableOut(
      Type.Object(
        { id: Type.String(), name: Type.String(), email_address: Type.String() },
        { additionalProperties: false, title: 'Creator' },
      ),
    ),
    error_code: NullableOut(Type.String()),
    raw_response_code: NullableOut(Type.String()),
    raw_response_description: NullableOut(Type.String()),
    settled: Type.Boolean({
      description:
        "The payment service's settlement report includes this refund (GET /transactions/{transaction_id}/refund-settlements lists it)",
    }),
  },
  { additionalProperties: false, title: 'Refund' },
);
export type Refund = Static<typeof RefundSchema>;

export const RefundsSchema = Type.Object(
  {
    items: Type.Array(RefundSchema),
    limit: Type.Integer({ default: 20 }),
    next_cursor: NullableOut(Type.String()),
    previous_cursor: NullableOut(Type.String()),
  },
  { additionalProperties: false, title: 'Refunds' },
);

export function toRefundResource(row: RefundRow, transaction: { external_identifier: string | null }): Refund {
  return {
    type: 'refund',
    id: row.id,
    transaction_id: row.transaction_id,
    payment_service_refund_id: row.payment_service_refund_id,
    status: row.status,
    currency: row.currency,
    amount: row.amount,
    reason: row.reason,
    target_type: row.target_type,
    target_id: row.target_id,
    reconciliation_id: uuidToBase62(row.id),
    external_identifier: row.external_identifier,
    transaction_reconciliation_id: uuidToBase62(row.transaction_id),
    transaction_external_identifier: transaction.external_identifier,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    creator: row.creator,
    error_code: row.error_code,
    raw_response_code: row.raw_response_code,
    raw_response_description: row.raw_response_description,
    settled: row.settled,
  };
}

export const RefundParams = Type.Object({
  transaction_id: Type.String({ format: 'uuid' }),
  refund_id: Type.String({ format: 'uuid' }),
});
export const RefundIdParams = Type.Object({ refund_id: Type.String({ format: 'uuid' }) });
export const RefundItemList = ItemList(RefundSchema, 'RefundList');
