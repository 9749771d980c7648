import { Type, type Static, type TSchema } from 'typebox';
import { CartItemSchema, GuestBuyerSchema } from '../../http/schemas/checkout.ts';
import {
  Country,
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
import {
  PAYMENT_SOURCES,
  StatementDescriptorSchema,
  TransactionBuyerSchema,
  TransactionShippingDetailsSchema,
} from '../transactions/transaction.schema.ts';

/** `POST /payment-links` (PaymentLinkCreate), `GET /payment-links` and the payment link resource (PaymentLink). */

export const PAYMENT_LINK_STATUSES = ['active', 'processing', 'completed', 'expired'] as const;
/** The locales the hosted page has translations for; any other falls back to English (docs/payment-links.md). */
export const PAGE_LOCALES = ['en', 'en-GB', 'es', 'pt', 'pt-BR'] as const;

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const Text = (minLength: number, maxLength: number, description?: string) =>
  Type.String({ minLength, maxLength, ...(description ? { description } : {}) });
/** An absolute http(s) URL; production accepts https only (checked by the service, 422 with its loc). */
const Url = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 2000,
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
    description: `${description}; an absolute https URL (http too in the sandbox)`,
  });
/** Kebab-case connector ids, as in a transaction's connection_options. */
const ConnectionOptions = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
  propertyNames: { pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
  maxProperties: 20,
  description: 'Options per connector (kebab-case connector ids, e.g. `mock-card`), passed on to the transaction',
});
/** The same shape and bounds as a transaction's metadata: the link's metadata is copied onto its transaction. */
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  description: 'String values; copied onto the transaction',
});

export const CreatePaymentLinkBody = Type.Object(
  {
    amount: MinorUnits({ minimum: 0, maximum: 99_999_999, description: 'Minor currency units' }),
    country: Country({ description: 'Filters the payment services that may take the payment' }),
    currency: Currency(),
    intent: Type.Optional(StringEnum(['authorize', 'capture'] as const, { default: 'authorize' })),
    payment_source: Type.Optional(StringEnum(PAYMENT_SOURCES, { default: 'ecommerce' })),
    store: Type.Optional(
      Type.Boolean({
        default: false,
        description: "Store the card the buyer pays with (for the link's buyer_id, if any)",
      }),
    ),
    expires_at: Opt(
      DateTime({ description: 'In the future and at most 90 days ahead; default 24 hours after creation' }),
    ),
    locale: Opt(
      Type.String({
        minLength: 1,
        maxLength: 50,
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
        description: `The hosted page's language: ${PAGE_LOCALES.join(', ')}; any other tag shows English`,
      }),
    ),
    merchant_name: Opt(Text(1, 100)),
    merchant_url: Opt(Url("The merchant's site")),
    merchant_banner_url: Opt(Url('An image shown at the top of the page')),
    merchant_color: Opt(
      Type.String({
        pattern: '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$',
        description: "Hex colour of the page's accents, e.g. #FF5733",
      }),
    ),
    merchant_message: Opt(Text(1, 255)),
    merchant_terms_and_conditions_url: Opt(Url("The merchant's terms and conditions")),
    merchant_favicon_url: Opt(Url("The page's favicon")),
    external_identifier: Opt(Text(1, 200, 'Also applied to the transaction')),
    statement_descriptor: Opt(StatementDescriptorSchema),
    return_url: Opt(
      Url('Where the buyer goes after paying, with transaction_id and transaction_status added to its query'),
    ),
    cart_items: Opt(Type.Array(CartItemSchema, { maxItems: 249 })),
    metadata: Opt(Metadata),
    buyer: Opt(GuestBuyerSchema),
    buyer_id: Opt(
      Uuid({
        description:
          "A stored buyer; the link then lets its holder pay with that buyer's stored cards, so treat it as a secret",
      }),
    ),
    installment_count: Opt(Type.Integer({ minimum: 1, maximum: 100 })),
    connection_options: Opt(ConnectionOptions),
  },
  { additionalProperties: false, title: 'PaymentLinkCreate' },
);
export type CreatePaymentLinkBody = Static<typeof CreatePaymentLinkBody>;

export const PaymentLinkParams = Type.Object({ payment_link_id: Uuid({ description: 'ID of the payment link' }) });

const At = (description: string) => Opt(DateTime({ description: `${description}; must carry a time zone offset` }));
const Minor = (description: string) => Opt(MinorUnits({ minimum: 0, maximum: 2_147_483_647, description }));

export const ListPaymentLinksQuery = Type.Object({
  cursor: Opt(Cursor),
  limit: PageLimit,
  created_at_gte: At('Created at or after'),
  created_at_lte: At('Created at or before'),
  updated_at_gte: At('Updated at or after'),
  updated_at_lte: At('Updated at or before'),
  currency: Opt(Type.Array(Currency(), { minItems: 1, maxItems: 50, description: 'Match any; repeat the key' })),
  amount_eq: Minor('amount equal to'),
  amount_gte: Minor('amount greater than or equal to'),
  amount_lte: Minor('amount less than or equal to'),
  status: Opt(
    Type.Array(StringEnum(PAYMENT_LINK_STATUSES), {
      minItems: 1,
      maxItems: 4,
      description: 'Match any; repeat the key',
    }),
  ),
  buyer_search: Opt(
    Type.Array(Text(1, 200), {
      minItems: 1,
      maxItems: 50,
      description:
        "Exact match on the buyer's display name (ignoring case), external identifier, or e-mail address (ignoring case); match any; repeat the key",
    }),
  ),
});
export type ListPaymentLinksQuery = Static<typeof ListPaymentLinksQuery>;

const Str = () => NullableOut(Type.String());

export const PaymentLinkSchema = Type.Object(
  {
    type: Type.Literal('payment-link'),
    id: Uuid(),
    url: Type.String({ description: 'The hosted page the buyer pays on (no token: the id in it is the secret)' }),
    status: StringEnum(PAYMENT_LINK_STATUSES),
    amount: Type.Integer(),
    country: Type.String(),
    currency: Type.String(),
    intent: StringEnum(['authorize', 'capture'] as const),
    payment_source: StringEnum(PAYMENT_SOURCES),
    store: Type.Boolean(),
    expires_at: NullableOut(DateTime()),
    locale: Str(),
    merchant_name: Str(),
    merchant_url: Str(),
    merchant_banner_url: Str(),
    merchant_color: Str(),
    merchant_message: Str(),
    merchant_terms_and_conditions_url: Str(),
    merchant_favicon_url: Str(),
    external_identifier: Str(),
    statement_descriptor: NullableOut(StatementDescriptorSchema),
    return_url: Str(),
    cart_items: NullableOut(Type.Array(CartItemSchema)),
    metadata: NullableOut(Type.Record(Type.String(), Type.String())),
    buyer: NullableOut(TransactionBuyerSchema),
    buyer_id: NullableOut(Uuid()),
    shipping_details: NullableOut(TransactionShippingDetailsSchema),
    installment_count: NullableOut(Type.Integer()),
    connection_options: NullableOut(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  {
    additionalProperties: false,
    title: 'PaymentLink',
    description:
      "The buyer's billing and shipping details are personal data: masked without the scope buyers.billing-details.read",
  },
);
export type PaymentLink = Static<typeof PaymentLinkSchema>;

export const PaymentLinksSchema = ListEnvelope(PaymentLinkSchema, 'PaymentLinks');
