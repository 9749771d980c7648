import { Type, type Static } from 'typebox';
import type { AttemptRow, TransactionRow } from '../../db/schema-transactions.ts';
import { CartItemSchema } from '../../http/schemas/checkout.ts';
import { DateTime, NullableOut, StringEnum } from '../../http/schemas/common.ts';

export const CAPTURE_STATUSES = ['succeeded', 'pending', 'declined', 'failed'] as const;
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number];

export const CaptureSchema = Type.Object(
  {
    type: Type.Literal('capture'),
    id: Type.String({ format: 'uuid' }),
    merchant_account_id: Type.String(),
    transaction_id: Type.String({ format: 'uuid' }),
    currency: Type.String(),
    amount: Type.Integer({ description: 'Minor currency units' }),
    status: StringEnum(CAPTURE_STATUSES, {
      description: '`pending` also while the provider has not answered yet (reconciliation asks it later)',
    }),
    final: Type.Boolean({ description: 'Whether this capture closed capturing on the transaction' }),
    xid: NullableOut(Type.String({ description: "The payment service's id of the capture" })),
    captured_at: NullableOut(DateTime()),
    external_identifier: NullableOut(Type.String()),
    error_code: NullableOut(Type.String()),
    iso_response_code: NullableOut(Type.String()),
    raw_response_code: NullableOut(Type.String()),
    raw_response_description: NullableOut(Type.String()),
    transaction_external_identifier: NullableOut(Type.String()),
    cart_items: NullableOut(Type.Array(CartItemSchema)),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'Capture' },
);
export type Capture = Static<typeof CaptureSchema>;

export const CapturesSchema = Type.Object(
  {
    items: Type.Array(CaptureSchema),
    limit: Type.Integer({ default: 20 }),
    next_cursor: NullableOut(Type.String()),
    previous_cursor: NullableOut(Type.String()),
  },
  { additionalProperties: false, title: 'CaptureCollection' },
);

export const CaptureParams = Type.Object({
  transaction_id: Type.String({ format: 'uuid' }),
  capture_id: Type.String({ format: 'uuid' }),
});

/** An attempt without its final answer yet (in flight, or no answer: `unknown`) is `pending` to the merchant. */
export function captureStatus(status: AttemptRow['status']): CaptureStatus {
  return status === 'succeeded' || status === 'declined' || status === 'failed' ? status : 'pending';
}

/** A capture attempt as the API shows it. A succeeded attempt is not updated after its answer, so its `updated_at` is when it was captured. */
export function toCaptureResource(
  attempt: AttemptRow,
  transaction: Pick<TransactionRow, 'currency' | 'external_identifier' | 'cart_items'>,
): Capture {
  const status = captureStatus(attempt.status);
  return {
    type: 'capture',
    id: attempt.id,
    merchant_account_id: attempt.merchant_account_id,
    transaction_id: attempt.transaction_id,
    currency: transaction.currency,
    amount: attempt.amount,
    status,
    final: attempt.final,
    xid: attempt.provider_reference,
    captured_at: status === 'succeeded' ? attempt.updated_at.toISOString() : null,
    external_identifier: attempt.external_identifier,
    error_code: attempt.error_code,
    iso_response_code: null,
    raw_response_code: attempt.raw_response_code,
    raw_response_description: attempt.raw_response_description,
    transaction_external_identifier: transaction.external_identifier,
    cart_items: (transaction.cart_items as Capture['cart_items']) ?? null,
    created_at: attempt.created_at.toISOString(),
    updated_at: attempt.updated_at.toISOString(),
  };
}
