import { Type, type Static, type TSchema } from 'typebox';
import { AddressResourceSchema, AddressSchema, toAddressResource, type Address } from '../../http/schemas/address.ts';
import { GuestBuyerSchema } from '../../http/schemas/checkout.ts';
import {
  Currency,
  Cursor,
  DateTime,
  ListEnvelope,
  MinorUnits,
  Nullable,
  NullableOut,
  PageLimit,
  StringEnum,
  Uuid,
} from '../../http/schemas/common.ts';
import { CARD_SCHEME_PATTERN } from '../../lib/cards/schemes.ts';
import { PhoneNumber } from '../buyers/buyers.schemas.ts';
import { CardExpirationDate, CardNumber } from '../payment-methods/payment-methods.schemas.ts';
import { TransactionBuyerSchema, TransactionPaymentMethodSchema } from '../transactions/transaction.schema.ts';

/** `POST /payouts` (PayoutCreate), `GET /payouts` and the payout resource (PayoutSummary). */

export const PAYOUT_STATUSES = ['pending', 'succeeded', 'declined', 'failed'] as const;
export const PAYOUT_CATEGORIES = ['online_gambling'] as const;

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const ExternalIdentifier = () => Type.String({ minLength: 1, maxLength: 200 });

const PayoutCardForm = Type.Object(
  {
    method: Type.Optional(Type.Literal('card', { default: 'card' })),
    number: CardNumber(),
    expiration_date: CardExpirationDate(),
    card_scheme: Opt(Type.String({ pattern: CARD_SCHEME_PATTERN })),
    external_identifier: Opt(ExternalIdentifier()),
  },
  { additionalProperties: false, title: 'PaymentMethodCard' },
);

const PayoutStoredCardForm = Type.Object(
  {
    method: Type.Optional(Type.Literal('id', { default: 'id' })),
    id: Uuid({ description: 'A stored card of the merchant account' }),
  },
  { additionalProperties: false, title: 'PaymentMethodStoredCard' },
);

export type PayoutCardForm = Static<typeof PayoutCardForm>;
export type PayoutStoredCardForm = Static<typeof PayoutStoredCardForm>;

/**
 * The destination card: a card, or a stored card (`id`). `method` may be left out: a body with `id`
 * and no `method` is the stored card, anything else a card. Written as if/then/else (see
 * `Discriminated` in http/schemas/discriminated.ts for why not `anyOf`).
 */
export const PayoutPaymentMethodBody = Type.Unsafe<PayoutCardForm | PayoutStoredCardForm>({
  type: 'object',
  title: 'PayoutPaymentMethodCreate',
  description:
    'The card that receives the funds: `{number, expiration_date}` (method `card`, never stored) or `{id}` (method `id`, a stored card)',
  if: {
    anyOf: [
      { properties: { method: { const: 'id' } }, required: ['method'] },
      { not: { required: ['method'] }, required: ['id'] },
    ],
  },
  then: PayoutStoredCardForm,
  else: PayoutCardForm,
});
export type PayoutPaymentMethodBody = Static<typeof PayoutPaymentMethodBody>;

export const PayoutMerchantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    identification_number: Type.String({ minLength: 1, maxLength: 200, description: 'Also known as a MID' }),
    phone_number: PhoneNumber(),
    url: Type.String({ minLength: 1, maxLength: 2000 }),
    statement_descriptor: Type.String({ minLength: 5, maxLength: 22 }),
    merchant_category_code: Type.String({ minLength: 1, maxLength: 4 }),
    address: Opt(AddressSchema),
  },
  { additionalProperties: false, title: 'PayoutMerchant' },
);

const CheckoutPayoutOptions = Type.Object(
  {
    processing_channel_id: Type.String({ minLength: 1 }),
    source_id: Type.String({ minLength: 1, description: 'ID of the currency account that will fund the payout' }),
  },
  { additionalProperties: false, title: 'CheckoutPayoutOptions' },
);

export const PayoutConnectionOptions = Type.Object(
  { 'checkout-card': Opt(CheckoutPayoutOptions) },
  { additionalProperties: false, title: 'PayoutConnectionOptions' },
);

export const CreatePayoutBody = Type.Object(
  {
    amount: MinorUnits({ minimum: 0, maximum: 99999999, description: 'Minor currency units' }),
    currency: Currency(),
    payment_service_id: Uuid({
      description: 'An active payment service of the merchant account whose connector makes payouts',
    }),
    payment_method: PayoutPaymentMethodBody,
    category: Opt(StringEnum(PAYOUT_CATEGORIES)),
    external_identifier: Opt(ExternalIdentifier()),
    buyer_id: Opt(
      Uuid({ description: 'A stored buyer; use only one of buyer_id, buyer and buyer_external_identifier' }),
    ),
    buyer: Opt(GuestBuyerSchema),
    buyer_external_identifier: Opt(ExternalIdentifier()),
    merchant: Opt(PayoutMerchantBody),
    connection_options: Opt(PayoutConnectionOptions),
  },
  { additionalProperties: false, title: 'PayoutCreate' },
);
export type CreatePayoutBody = Static<typeof CreatePayoutBody>;

export const PayoutParams = Type.Object({ payout_id: Uuid({ description: 'ID of the payout' }) });

const At = (description: string) => Opt(DateTime({ description: `${description}; must carry a time zone offset` }));

export const ListPayoutsQuery = Type.Object({
  cursor: Opt(Cursor),
  limit: PageLimit,
  created_at_gte: At('Created at or after'),
  created_at_lte: At('Created at or before'),
  updated_at_gte: At('Updated at or after'),
  updated_at_lte: At('Updated at or before'),
  external_identifier: Opt(ExternalIdentifier()),
  payment_service_payout_id: Opt(Type.String({ minLength: 1, maxLength: 200 })),
  status: Opt(
    Type.Array(StringEnum(PAYOUT_STATUSES), { minItems: 1, maxItems: 4, description: 'Match any; repeat the key' }),
  ),
});
export type ListPayoutsQuery = Static<typeof ListPayoutsQuery>;

const Str = () => NullableOut(Type.String());

const PayoutMerchantSummarySchema = Type.Object(
  {
    type: Type.Literal('merchant'),
    name: Type.String(),
    identification_number: Type.String(),
    phone_number: Type.String(),
    url: Type.String(),
    statement_descriptor: Str(),
    merchant_category_code: Type.String(),
    address: NullableOut(AddressResourceSchema),
  },
  { additionalProperties: false, title: 'PayoutMerchantSummary' },
);

const PayoutPaymentServiceSchema = Type.Object(
  {
    type: Type.Literal('payment-service'),
    id: NullableOut(Uuid()),
    method: Type.Literal('card'),
    payment_service_definition_id: Type.String(),
    display_name: Str(),
  },
  { additionalProperties: false, title: 'PayoutPaymentService' },
);

export const PayoutSchema = Type.Object(
  {
    type: Type.Literal('payout'),
    id: Uuid(),
    merchant_account_id: Type.String(),
    status: StringEnum(PAYOUT_STATUSES),
    amount: Type.Integer(),
    currency: Type.String(),
    category: NullableOut(StringEnum(PAYOUT_CATEGORIES)),
    external_identifier: Str(),
    payment_method: TransactionPaymentMethodSchema,
    payment_service: PayoutPaymentServiceSchema,
    payment_service_payout_id: Str(),
    buyer: NullableOut(TransactionBuyerSchema),
    merchant: NullableOut(PayoutMerchantSummarySchema),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  {
    additionalProperties: false,
    title: 'PayoutSummary',
    description: "The buyer's billing details are personal data: masked without the scope buyers.billing-details.read",
  },
);
export type Payout = Static<typeof PayoutSchema>;

export const PayoutsSchema = ListEnvelope(PayoutSchema, 'PayoutSummaries');

/** The merchant of a payout as stored (the request's `merchant`). */
export type PayoutMerchantJson = Static<typeof PayoutMerchantBody>;

export function toPayoutMerchant(merchant: PayoutMerchantJson | null): Payout['merchant'] {
  if (!merchant) return null;
  return {
    type: 'merchant',
    name: merchant.name,
    identification_number: merchant.identification_number,
    phone_number: merchant.phone_number,
    url: merchant.url,
    statement_descriptor: merchant.statement_descriptor ?? null,
    merchant_category_code: merchant.merchant_category_code,
    address: toAddressResource((merchant.address ?? null) as Address | null),
  };
}
