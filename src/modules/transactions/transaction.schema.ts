import { Type, type Static } from 'typebox';
import { AddressResourceSchema } from '../../http/schemas/address.ts';
import { AirlineSchema, CartItemSchema } from '../../http/schemas/checkout.ts';
import { DateTime, MinorUnits, NullableOut, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { BillingDetailsResourceSchema } from '../buyers/buyers.schemas.ts';
import { GiftCardRedemptionSchema } from '../gift-cards/gift-cards.schemas.ts';

/** The transaction resource (`type` = `transaction`) as the spec lists it, every field present. */

export const TRANSACTION_STATUSES = [
  'processing',
  'authorization_succeeded',
  'authorization_declined',
  'authorization_failed',
  'authorization_voided',
  'authorization_void_pending',
  'capture_succeeded',
  'capture_pending',
  'buyer_approval_pending',
] as const;
export const PAYMENT_SOURCES = ['ecommerce', 'moto', 'recurring', 'installment', 'card_on_file'] as const;
export const INSTRUMENT_TYPES = [
  'pan',
  'card_token',
  'redirect',
  'redirect_token',
  'googlepay',
  'applepay',
  'network_token',
  'plaid',
  'bank',
] as const;
const AVS = [
  'match',
  'no_match',
  'partial_match_address',
  'partial_match_postcode',
  'partial_match_name',
  'unavailable',
] as const;
const CVV = ['match', 'no_match', 'unavailable', 'not_provided'] as const;
const ANTI_FRAUD = ['accept', 'error', 'exception', 'reject', 'review', 'skipped', 'pending'] as const;

const Str = () => NullableOut(Type.String());
const Int = () => NullableOut(Type.Integer());
const Time = () => NullableOut(DateTime());

export const TransactionPaymentMethodSchema = Type.Object(
  {
    type: Type.Literal('payment-method'),
    id: NullableOut(Uuid()),
    method: Type.String(),
    mode: Str(),
    scheme: Str(),
    label: Str(),
    expiration_date: Str(),
    fingerprint: Str(),
    country: Str(),
    currency: Str(),
    details: NullableOut(
      Type.Object(
        { bin: Str(), card_type: Str(), card_issuer_name: Str() },
        { additionalProperties: false, title: 'PaymentMethodDetailsCard' },
      ),
    ),
    approval_url: Str(),
    approval_target: Str(),
    external_identifier: Str(),
    last_replaced_at: Time(),
    payment_account_reference: Str(),
  },
  { additionalProperties: false, title: 'TransactionPaymentMethod' },
);

export const TransactionPaymentServiceSchema = Type.Object(
  {
    type: Type.Literal('payment-service'),
    id: Uuid(),
    payment_service_definition_id: Type.String(),
    method: Type.String(),
    display_name: Type.String(),
  },
  { additionalProperties: false, title: 'TransactionPaymentService' },
);

export const TransactionBuyerSchema = Type.Object(
  {
    type: Type.Literal('buyer'),
    id: NullableOut(Uuid()),
    display_name: Str(),
    external_identifier: Str(),
    billing_details: NullableOut(BillingDetailsResourceSchema),
    account_number: Str(),
  },
  {
    additionalProperties: false,
    title: 'TransactionBuyer',
    description: 'Billing details are personal data: masked without the scope buyers.billing-details.read',
  },
);

export const TransactionShippingDetailsSchema = Type.Object(
  {
    type: Type.Literal('shipping-details'),
    id: NullableOut(Uuid()),
    buyer_id: NullableOut(Uuid()),
    first_name: Str(),
    last_name: Str(),
    email_address: Str(),
    phone_number: Str(),
    address: NullableOut(AddressResourceSchema),
  },
  { additionalProperties: false, title: 'TransactionShippingDetails' },
);

const ThreeDSecureSummarySchema = Type.Object(
  {
    version: Str(),
    status: NullableOut(StringEnum(['setup_error', 'error', 'declined', 'cancelled', 'complete'] as const)),
    method: NullableOut(StringEnum(['challenge', 'frictionless'] as const)),
    amount: Int(),
    response_data: NullableOut(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
    error_data: NullableOut(
      Type.Object(
        { code: Str(), description: Str(), detail: Str(), component: Str() },
        { additionalProperties: false, title: 'ThreeDSecureError' },
      ),
    ),
  },
  { additionalProperties: false, title: 'TransactionThreeDSecureSummary' },
);

export const StatementDescriptorSchema = Type.Object(
  {
    name: Type.Optional(NullableOut(Type.String({ maxLength: 22 }))),
    description: Type.Optional(NullableOut(Type.String({ maxLength: 200 }))),
    city: Type.Optional(NullableOut(Type.String({ maxLength: 100 }))),
    country: Type.Optional(NullableOut(Type.String({ pattern: '^[A-Z]{2}$' }))),
    phone_number: Type.Optional(NullableOut(Type.String({ pattern: '^\\+[1-9][0-9]{1,14}$' }))),
    url: Type.Optional(NullableOut(Type.String({ maxLength: 2000 }))),
    postal_code: Type.Optional(NullableOut(Type.String({ maxLength: 20 }))),
  },
  { additionalProperties: false, title: 'StatementDescriptor' },
);

export const RecipientSchema = Type.Object(
  {
    first_name: Type.String({ minLength: 1, maxLength: 200 }),
    last_name: Type.String({ minLength: 1, maxLength: 200 }),
    address: Type.Optional(NullableOut(Type.Object({}, { additionalProperties: true }))),
    account_number: Type.Optional(NullableOut(Type.String({ maxLength: 200 }))),
    date_of_birth: Type.Optional(NullableOut(Type.String({ format: 'date' }))),
  },
  { additionalProperties: false, title: 'Recipient' },
);

/** The first 32 fields: what list items (TransactionSummary) carry. */
const SummaryFields = {
  type: Type.Literal('transaction'),
  id: Uuid(),
  reconciliation_id: Type.String({
    description: 'Base62 form of the id, sent to payment services as the short reference',
  }),
  merchant_account_id: Type.String(),
  currency: Type.String(),
  amount: Type.Integer({ description: 'Total across all funding sources, gift cards included' }),
  status: StringEnum(TRANSACTION_STATUSES),
  authorized_amount: Type.Integer(),
  captured_amount: Type.Integer(),
  refunded_amount: Type.Integer(),
  settled_currency: Str(),
  settled_amount: Type.Integer(),
  settled: Type.Boolean(),
  country: Str(),
  external_identifier: Str(),
  intent: StringEnum(['authorize', 'capture'] as const),
  payment_method: NullableOut(TransactionPaymentMethodSchema),
  method: Str(),
  instrument_type: NullableOut(StringEnum(INSTRUMENT_TYPES)),
  error_code: Str(),
  payment_service: NullableOut(TransactionPaymentServiceSchema),
  pending_review: Type.Boolean(),
  buyer: NullableOut(TransactionBuyerSchema),
  raw_response_code: Str(),
  raw_response_description: Str(),
  shipping_details: NullableOut(TransactionShippingDetailsSchema),
  checkout_session_id: NullableOut(Uuid()),
  gift_card_redemptions: Type.Array(GiftCardRedemptionSchema),
  gift_card_service: NullableOut(
    Type.Object(
      {
        type: Type.Literal('gift-card-service'),
        id: Uuid(),
        gift_card_service_definition_id: Type.String(),
        display_name: Type.String(),
      },
      { additionalProperties: false, title: 'GiftCardService' },
    ),
  ),
  created_at: DateTime(),
  updated_at: DateTime(),
  disputed: Type.Boolean(),
};

export const TransactionSummarySchema = Type.Object(SummaryFields, {
  additionalProperties: false,
  title: 'TransactionSummary',
});
export type TransactionSummary = Static<typeof TransactionSummarySchema>;

export const TransactionSchema = Type.Object(
  {
    ...SummaryFields,
    airline: NullableOut(AirlineSchema),
    auth_response_code: Str(),
    avs_response_code: NullableOut(StringEnum(AVS)),
    cvv_response_code: NullableOut(StringEnum(CVV)),
    anti_fraud_decision: NullableOut(StringEnum(ANTI_FRAUD)),
    payment_source: StringEnum(PAYMENT_SOURCES),
    merchant_initiated: Type.Boolean(),
    is_subsequent_payment: Type.Boolean(),
    cart_items: NullableOut(Type.Array(CartItemSchema)),
    statement_descriptor: NullableOut(StatementDescriptorSchema),
    scheme_transaction_id: Str(),
    three_d_secure: NullableOut(ThreeDSecureSummarySchema),
    payment_service_transaction_id: Str(),
    additional_identifiers: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()])),
    metadata: NullableOut(Type.Record(Type.String(), Type.String())),
    authorized_at: Time(),
    captured_at: Time(),
    voided_at: Time(),
    canceled_at: Time(),
    approval_expires_at: Time(),
    buyer_approval_timedout_at: Time(),
    intent_outcome: StringEnum(['pending', 'succeeded', 'failed'] as const),
    multi_tender: Type.Boolean(),
    account_funding_transaction: Type.Boolean(),
    recipient: NullableOut(RecipientSchema),
    merchant_advice_code: Str(),
    installment_count: Int(),
    session_token: Str(),
    tax_amount: Int(),
    merchant_tax_id: Str(),
    purchase_order_number: Str(),
    customer_reference_number: Str(),
    amount_includes_tax: NullableOut(Type.Boolean()),
    supplier_order_number: Str(),
    duty_amount: Int(),
    shipping_amount: Int(),
    iso_response_code: Str(),
  },
  { additionalProperties: false, title: 'Transaction' },
);
export type Transaction = Static<typeof TransactionSchema>;

/** Level 2/3 and other pass-through fields kept in the `extra` column. */
export const EXTRA_FIELDS = [
  'installment_count',
  'tax_amount',
  'merchant_tax_id',
  'purchase_order_number',
  'customer_reference_number',
  'amount_includes_tax',
  'supplier_order_number',
  'duty_amount',
  'shipping_amount',
] as const;

const resultOf = (type: string, statuses: readonly string[], title: string) =>
  Type.Object(
    {
      type: Type.Literal(type),
      status: StringEnum(statuses),
      code: Str(),
      raw_response_code: Str(),
      raw_response_description: Str(),
      transaction: TransactionSchema,
    },
    { additionalProperties: false, title },
  );

export const TransactionCaptureSchema = resultOf(
  'transaction-capture',
  ['succeeded', 'pending', 'declined', 'failed'],
  'TransactionCapture',
);
export const TransactionVoidSchema = resultOf(
  'transaction-void',
  ['succeeded', 'pending', 'declined', 'failed'],
  'TransactionVoid',
);
export const TransactionCancelSchema = resultOf(
  'transaction-cancel',
  ['succeeded', 'pending', 'failed'],
  'TransactionCancel',
);
export const TransactionAuthorizationIncrementSchema = resultOf(
  'transaction-authorization-increment',
  ['succeeded', 'failed'],
  'TransactionAuthorizationIncrement',
);
export const IncrementAuthorizationBody = Type.Object(
  {
    amount: MinorUnits({
      minimum: 0,
      maximum: 99_999_999,
      description: 'The increase in minor units (not the new total)',
    }),
  },
  { additionalProperties: false, title: 'TransactionAuthorizationIncrementCreate' },
);
export type IncrementAuthorizationBody = Static<typeof IncrementAuthorizationBody>;
export type OperationResult = {
  type: string;
  status: string;
  code: string | null;
  raw_response_code: string | null;
  raw_response_description: string | null;
  transaction: Transaction;
};
