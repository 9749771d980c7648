import { Type, type Static } from 'typebox';
import type { PaymentMethodRow } from '../../db/schema.ts';
import {
  Country,
  Currency,
  Cursor,
  DateTime,
  Defaulted,
  ItemList,
  ListEnvelope,
  Nullable,
  PageLimit,
  StringEnum,
} from '../../http/schemas/common.ts';
import { Discriminated } from '../../http/schemas/discriminated.ts';
import { CARD_SCHEMES } from '../../lib/card-schemes.ts';

export const PAYMENT_METHOD_STATUSES = [
  'processing',
  'buyer_approval_required',
  'succeeded',
  'failed',
  'paused',
] as const;
export const CARD_TYPES = ['credit', 'debit', 'prepaid'] as const;

const ExternalIdentifier = Type.String({ minLength: 1, maxLength: 200 });

/** Card atoms shared by every body that takes a card (stored cards, checkout session fields). */
export const CardNumber = () =>
  Type.String({ pattern: '^\\d{13,19}$', description: '13 to 19 digits. Never returned, never logged.' });
export const CardExpirationDate = () => Type.String({ pattern: '^(0[1-9]|1[0-2])/\\d{2}$', description: 'MM/YY' });
export const SecurityCode = () =>
  Type.String({
    pattern: '^\\d{3,4}$',
    description: '3 or 4 digits; kept encrypted until first use, at most one hour',
  });

const BuyerLink = {
  external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
  buyer_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
  buyer_external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
};

/** The card form of `POST /payment-methods`. */
export const CreateCardPaymentMethodBody = Type.Object(
  {
    method: Type.Literal('card', { default: 'card' }),
    number: CardNumber(),
    expiration_date: CardExpirationDate(),
    security_code: Type.Optional(Nullable(SecurityCode())),
    card_type: Type.Optional(Nullable(StringEnum(CARD_TYPES))),
    ...BuyerLink,
  },
  { additionalProperties: false, title: 'CardPaymentMethodCreate' },
);
export type CreateCardPaymentMethodBody = Static<typeof CreateCardPaymentMethodBody>;

/** The checkout session form: stores the card a checkout session holds. */
export const CreateCheckoutSessionPaymentMethodBody = Type.Object(
  {
    method: Type.Literal('checkout-session'),
    id: Type.String({ format: 'uuid', description: 'ID of the checkout session' }),
    ...BuyerLink,
  },
  { additionalProperties: false, title: 'CheckoutSessionPaymentMethodCreate' },
);
export type CreateCheckoutSessionPaymentMethodBody = Static<typeof CreateCheckoutSessionPaymentMethodBody>;

/** `POST /payment-methods`: one of the forms, chosen by `method` (default `card`). */
export const CreatePaymentMethodBody = Discriminated(
  'method',
  ['card', 'checkout-session'],
  [CreateCardPaymentMethodBody, CreateCheckoutSessionPaymentMethodBody],
  {
    defaultValue: 'card',
    title: 'PaymentMethodCreate',
  },
);
export type CreatePaymentMethodBody = Static<typeof CreatePaymentMethodBody>;

/** `PUT /payment-methods/{id}`: every field optional; see `updatePatch` for what null and omitted mean. */
export const UpdatePaymentMethodBody = Type.Object(
  {
    expiration_date: Type.Optional(Nullable(CardExpirationDate())),
    scheme_transaction_id: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 100,
          description:
            "The scheme's id of the card's first customer-initiated transaction; null also clears scheme_transaction_id_scheme",
        }),
      ),
    ),
    scheme_transaction_id_scheme: Type.Optional(
      Nullable(
        StringEnum(CARD_SCHEMES, {
          description: "The scheme of scheme_transaction_id; when omitted and not set yet, the card's scheme",
        }),
      ),
    ),
    transaction_link_id: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  },
  { additionalProperties: false, title: 'PaymentMethodUpdate' },
);
export type UpdatePaymentMethodBody = Static<typeof UpdatePaymentMethodBody>;

export const PaymentMethodParams = Type.Object({ payment_method_id: Type.String({ format: 'uuid' }) });

export const ListPaymentMethodsQuery = Type.Object({
  cursor: Type.Optional(Nullable(Cursor)),
  limit: PageLimit,
  buyer_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
  buyer_external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
  external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
  status: Type.Optional(Nullable(Type.Array(StringEnum(PAYMENT_METHOD_STATUSES), { maxItems: 5 }))),
});
export type ListPaymentMethodsQuery = Static<typeof ListPaymentMethodsQuery>;

const Text = () => Type.Optional(Nullable(Type.String()));

export const PaymentMethodSchema = Type.Object(
  {
    type: Type.Literal('payment-method'),
    id: Type.String({ format: 'uuid' }),
    merchant_account_id: Type.String(),
    method: Type.String(),
    mode: Text(),
    status: StringEnum(PAYMENT_METHOD_STATUSES),
    scheme: Text(),
    additional_schemes: Type.Optional(Nullable(Type.Array(Type.String()))),
    label: Text(),
    expiration_date: Text(),
    fingerprint: Text(),
    details: Type.Optional(
      Nullable(
        Type.Object({ bin: Text(), card_type: Text(), card_issuer_name: Text() }, { additionalProperties: false }),
      ),
    ),
    approval_url: Text(),
    country: Text(),
    currency: Text(),
    external_identifier: Text(),
    buyer: Type.Optional(
      Nullable(
        Type.Any({
          description:
            'The buyer the method is stored for (billing details masked without buyers.billing-details.read)',
        }),
      ),
    ),
    usage_count: Type.Integer(),
    cit_usage_count: Type.Integer(),
    has_replacement: Type.Boolean(),
    scheme_transaction_id: Nullable(
      Type.String({
        description:
          "The scheme's transaction id of the card's first approved customer-initiated payment, which merchant-initiated payments refer to; set by that payment or by PUT",
      }),
    ),
    scheme_transaction_id_scheme: Nullable(
      StringEnum(CARD_SCHEMES, { description: 'The scheme that issued scheme_transaction_id' }),
    ),
    transaction_link_id: Type.Optional(
      Nullable(Type.String({ description: "The merchant's transaction link id, set by PUT" })),
    ),
    last_used_at: Type.Optional(Nullable(DateTime())),
    cit_last_used_at: Type.Optional(Nullable(DateTime())),
    last_replaced_at: Type.Optional(Nullable(DateTime())),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'PaymentMethod' },
);
export type PaymentMethod = Static<typeof PaymentMethodSchema>;

export const PaymentMethodsSchema = ListEnvelope(PaymentMethodSchema, 'PaymentMethods');

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** The resource of a stored method. The card number, its ciphertext and any security code never leave. */
export function toPaymentMethodResource(row: PaymentMethodRow, buyer: unknown = null): PaymentMethod {
  return {
    type: 'payment-method',
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    method: row.method,
    mode: row.method === 'card' ? 'card' : row.method === 'paypal' ? 'redirect' : null,
    status: row.status as PaymentMethod['status'],
    scheme: row.scheme,
    additional_schemes: null,
    // A card's last 4 digits; an account at a provider's masked e-mail (provider-accounts.service.ts).
    label: row.label ?? row.last4,
    expiration_date: row.expiration_date,
    fingerprint: row.fingerprint,
    details: row.method === 'card' ? { bin: row.bin, card_type: row.card_type, card_issuer_name: null } : null,
    approval_url: null,
    country: null,
    currency: null,
    external_identifier: row.external_identifier,
    buyer,
    usage_count: row.usage_count,
    cit_usage_count: row.cit_usage_count,
    has_replacement: false,
    scheme_transaction_id: row.scheme_transaction_id,
    scheme_transaction_id_scheme: row.scheme_transaction_id_scheme as PaymentMethod['scheme_transaction_id_scheme'],
    transaction_link_id: row.transaction_link_id,
    last_used_at: iso(row.last_used_at),
    cit_last_used_at: iso(row.cit_last_used_at),
    last_replaced_at: iso(row.last_replaced_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const ListBuyerPaymentMethodsQuery = Type.Object({
  buyer_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
  buyer_external_identifier: Type.Optional(Nullable(ExternalIdentifier)),
  country: Type.Optional(
    Nullable(Country({ description: 'Only methods usable in this country (a method tied to no country matches any)' })),
  ),
  currency: Type.Optional(
    Nullable(
      Currency({ description: 'Only methods usable in this currency (a method tied to no currency matches any)' }),
    ),
  ),
  order_by: Defaulted(StringEnum(['asc', 'desc'] as const, { default: 'desc' })),
  sort_by: Type.Optional(Nullable(Type.Literal('last_used_at'))),
});
export type ListBuyerPaymentMethodsQuery = Static<typeof ListBuyerPaymentMethodsQuery>;

/** A stored method as a buyer's list shows it: the resource without buyer, external identifier, status and timestamps. */
export const PaymentMethodSummarySchema = Type.Omit(
  PaymentMethodSchema,
  ['buyer', 'external_identifier', 'status', 'created_at', 'updated_at'],
  {
    additionalProperties: false,
    title: 'PaymentMethodSummary',
  },
);
export type PaymentMethodSummary = Static<typeof PaymentMethodSummarySchema>;

export const PaymentMethodSummariesSchema = ItemList(PaymentMethodSummarySchema, 'PaymentMethodSummaries');

export function toPaymentMethodSummary(row: PaymentMethodRow): PaymentMethodSummary {
  const {
    buyer: _buyer,
    external_identifier: _external,
    status: _status,
    created_at: _created,
    updated_at: _updated,
    ...summary
  } = toPaymentMethodResource(row);
  return summary;
}
