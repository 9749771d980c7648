import { Type, type Static } from 'typebox';
import { GIFT_CARD_ERROR_CODES } from '../../connectors/gift-cards/gift-card-connector.ts';
import type { GiftCardActivationRow, GiftCardRedemptionRow, GiftCardRow } from '../../db/schema.ts';
import {
  Amount,
  Currency,
  Cursor,
  DateTime,
  ItemList,
  ListEnvelope,
  Nullable,
  PageLimit,
  StringEnum,
} from '../../http/schemas/common.ts';
import type { GiftCardServiceResource } from './gift-card-service.ts';

/** At most this many gift cards in one balance request (and, for the engine, one transaction). */
export const MAX_GIFT_CARDS = 10;

const ExternalIdentifier = Type.String({ minLength: 1, maxLength: 200 });
export const GiftCardNumber = () =>
  Type.String({ pattern: '^\\d{16,19}$', description: '16 to 19 digits. Never returned, never logged.' });
export const GiftCardPin = () =>
  Type.String({ minLength: 1, maxLength: 64, description: 'Never returned, never logged.' });
const BuyerId = () => Type.String({ format: 'uuid' });

export const CreateGiftCardBody = Type.Object(
  {
    number: GiftCardNumber(),
    pin: GiftCardPin(),
    buyer_id: Type.Optional(Nullable(BuyerId())),
    buyer_external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
  },
  { additionalProperties: false, title: 'GiftCardCreate' },
);
export type CreateGiftCardBody = Static<typeof CreateGiftCardBody>;

export const CreateGiftCardActivationBody = Type.Object(
  {
    number: GiftCardNumber(),
    pin: Type.Optional(Nullable(GiftCardPin())),
    amount: Type.Optional(
      Nullable(
        Amount({
          description:
            'The value to load, in the minor units of currency (required with currency); without it the card takes its own face value',
        }),
      ),
    ),
    currency: Type.Optional(Nullable(Currency({ description: 'ISO 4217 currency code (required with amount)' }))),
    external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
    store: Type.Boolean({
      default: false,
      description: 'Also store the card (number and pin encrypted) as POST /gift-cards does; requires pin',
    }),
    buyer_id: Type.Optional(Nullable(BuyerId())),
    buyer_external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
  },
  { additionalProperties: false, title: 'GiftCardActivationCreate' },
);
export type CreateGiftCardActivationBody = Static<typeof CreateGiftCardActivationBody>;

export const GiftCardParams = Type.Object({ gift_card_id: Type.String({ format: 'uuid' }) });

const BuyerSelection = {
  buyer_id: Type.Optional(Nullable(BuyerId())),
  buyer_external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
};

export const ListGiftCardsQuery = Type.Object({
  cursor: Type.Optional(Nullable(Cursor)),
  limit: PageLimit,
  ...BuyerSelection,
});
export type ListGiftCardsQuery = Static<typeof ListGiftCardsQuery>;

export const ListBuyerGiftCardsQuery = Type.Object(BuyerSelection);
export type ListBuyerGiftCardsQuery = Static<typeof ListBuyerGiftCardsQuery>;

const GiftCardRequest = Type.Object(
  { number: GiftCardNumber(), pin: GiftCardPin() },
  { additionalProperties: false, title: 'GiftCardRequest' },
);
const GiftCardStoredRequest = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false, title: 'GiftCardStoredRequest' },
);
export type GiftCardBalanceItem = Static<typeof GiftCardRequest> | Static<typeof GiftCardStoredRequest>;

/**
 * An item is a stored card when it has `id`, else a card given in full. An if/then/else, not
 * `anyOf`: the validator drops unknown fields, and the first form tried would strip the other's.
 */
const BalanceItem = Type.Unsafe<GiftCardBalanceItem>({
  type: 'object',
  if: { required: ['id'] },
  then: GiftCardStoredRequest,
  else: GiftCardRequest,
});

export const GiftCardBalanceBody = Type.Object(
  { items: Type.Array(BalanceItem, { minItems: 1, maxItems: MAX_GIFT_CARDS }) },
  { additionalProperties: false, title: 'GiftCardBalanceRequest' },
);
export type GiftCardBalanceBody = Static<typeof GiftCardBalanceBody>;

export const GiftCardServiceSchema = Type.Object(
  {
    type: Type.Literal('gift-card-service'),
    id: Type.String({ format: 'uuid' }),
    gift_card_service_definition_id: StringEnum(['mock-gift-card', 'qwikcilver-gift-card'] as const),
    display_name: Type.String(),
  },
  { additionalProperties: false, title: 'GiftCardService' },
);

const CardDigits = {
  bin: Type.String({ description: 'First 6 digits' }),
  sub_bin: Type.String({ description: 'The 3 digits after the bin' }),
  last4: Type.String({ description: 'Last 4 digits' }),
};

export const GiftCardSchema = Type.Object(
  {
    type: Type.Literal('gift-card'),
    id: Type.String({ format: 'uuid' }),
    merchant_account_id: Type.String(),
    gift_card_service: GiftCardServiceSchema,
    ...CardDigits,
    expiration_date: Type.Optional(Nullable(DateTime())),
    buyer: Type.Optional(
      Nullable(
        Type.Any({
          description:
            'The buyer the gift card is stored for (billing details masked without buyers.billing-details.read)',
        }),
      ),
    ),
    usage_count: Type.Integer({ description: 'Succeeded redemptions of the stored card' }),
    cit_usage_count: Type.Integer({ description: 'Succeeded redemptions in customer-initiated transactions' }),
    last_used_at: Type.Optional(Nullable(DateTime({ description: 'When the card was last redeemed' }))),
    cit_last_used_at: Type.Optional(
      Nullable(DateTime({ description: 'When the card was last redeemed in a customer-initiated transaction' })),
    ),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'GiftCard' },
);
export type GiftCard = Static<typeof GiftCardSchema>;

export const GiftCardsSchema = ListEnvelope(GiftCardSchema, 'GiftCards');

const ErrorCode = () => Type.Optional(Nullable(StringEnum(GIFT_CARD_ERROR_CODES)));
const Text = () => Type.Optional(Nullable(Type.String()));

export const GiftCardSummarySchema = Type.Object(
  {
    type: Type.Literal('gift-card'),
    id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'Set for stored gift cards only' }))),
    merchant_account_id: Type.String(),
    ...CardDigits,
    currency: Text(),
    expiration_date: Type.Optional(Nullable(DateTime())),
    balance: Type.Optional(Nullable(Type.Integer())),
    balance_error_code: ErrorCode(),
    balance_raw_error_code: Text(),
    balance_raw_error_message: Text(),
    usage_count: Type.Integer({
      description:
        'Succeeded redemptions of the card in this merchant account: of the stored card (as GET /gift-cards/{id} counts), or of the number given in full',
    }),
    cit_usage_count: Type.Integer({ description: 'Those of them in customer-initiated transactions' }),
    last_used_at: Type.Optional(Nullable(DateTime({ description: 'When the card was last redeemed' }))),
    cit_last_used_at: Type.Optional(
      Nullable(DateTime({ description: 'When the card was last redeemed in a customer-initiated transaction' })),
    ),
  },
  { additionalProperties: false, title: 'GiftCardSummary' },
);
export type GiftCardSummary = Static<typeof GiftCardSummarySchema>;

export const GiftCardSummariesSchema = ItemList(GiftCardSummarySchema, 'GiftCardSummaries');

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** How often a stored card was redeemed (all, and in customer-initiated transactions). */
export interface GiftCardUsage {
  usageCount: number;
  lastUsedAt: Date | null;
  citUsageCount: number;
  citLastUsedAt: Date | null;
}
export const NO_USAGE: GiftCardUsage = { usageCount: 0, lastUsedAt: null, citUsageCount: 0, citLastUsedAt: null };

export const usageFields = (usage: GiftCardUsage) => ({
  usage_count: usage.usageCount,
  cit_usage_count: usage.citUsageCount,
  last_used_at: iso(usage.lastUsedAt),
  cit_last_used_at: iso(usage.citLastUsedAt),
});

/** The resource of a stored gift card. Number, pin and their ciphertexts never leave. */
export function toGiftCardResource(
  row: Pick<
    GiftCardRow,
    'id' | 'merchant_account_id' | 'bin' | 'sub_bin' | 'last4' | 'expiration_date' | 'created_at' | 'updated_at'
  >,
  service: GiftCardServiceResource,
  buyer: unknown = null,
  usage: GiftCardUsage = NO_USAGE,
): GiftCard {
  return {
    type: 'gift-card',
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    gift_card_service: service,
    bin: row.bin,
    sub_bin: row.sub_bin,
    last4: row.last4,
    expiration_date: iso(row.expiration_date),
    buyer,
    ...usageFields(usage),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** An activated card that was not stored: its id is the activation's (no stored card has it). */
export const toActivatedGiftCardResource = (row: GiftCardActivationRow, service: GiftCardServiceResource): GiftCard =>
  toGiftCardResource(row, service);

export const TransactionGiftCardSchema = Type.Object(
  { type: Type.Literal('gift-card'), id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))), ...CardDigits },
  { additionalProperties: false, title: 'TransactionGiftCard' },
);

/** For the transaction engine: a redemption as `Transaction.gift_card_redemptions` shows it. */
export const GiftCardRedemptionSchema = Type.Object(
  {
    type: Type.Literal('gift-card-redemption'),
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(['created', 'succeeded', 'failed', 'skipped'] as const),
    amount: Type.Integer(),
    refunded_amount: Type.Integer({ description: 'Never larger than amount' }),
    gift_card_service_redemption_id: Text(),
    error_code: ErrorCode(),
    raw_error_code: Text(),
    raw_error_message: Text(),
    gift_card: TransactionGiftCardSchema,
  },
  { additionalProperties: false, title: 'GiftCardRedemption' },
);
export type GiftCardRedemption = Static<typeof GiftCardRedemptionSchema>;

export function toGiftCardRedemptionResource(row: GiftCardRedemptionRow): GiftCardRedemption {
  return {
    type: 'gift-card-redemption',
    id: row.id,
    status: row.status,
    amount: row.amount,
    refunded_amount: row.refunded_amount,
    gift_card_service_redemption_id: row.gift_card_service_redemption_id,
    error_code: row.error_code as GiftCardRedemption['error_code'],
    raw_error_code: row.raw_error_code,
    raw_error_message: row.raw_error_message,
    gift_card: { type: 'gift-card', id: row.gift_card_id, bin: row.bin, sub_bin: row.sub_bin, last4: row.last4 },
  };
}
