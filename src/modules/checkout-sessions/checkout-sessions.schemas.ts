import { Type, type Static } from 'typebox';
import type { CheckoutSessionRow } from '../../db/schema.ts';
import { AirlineSchema, CartItemSchema, GuestBuyerSchema } from '../../http/schemas/checkout.ts';
import { Currency, DateTime, Nullable, Uuid } from '../../http/schemas/common.ts';
import { Discriminated } from '../../http/schemas/discriminated.ts';
import { GuestBuyerResourceSchema, toGuestBuyerResource } from './guest-buyer.schemas.ts';
import {
  CARD_TYPES,
  CardExpirationDate,
  CardNumber,
  SecurityCode,
} from '../payment-methods/payment-methods.schemas.ts';

/** Longest lifetime a caller may ask for with `expires_in` (one day). */
export const MAX_EXPIRES_IN_SECONDS = 24 * 3600;

const SessionFields = {
  cart_items: Type.Optional(Nullable(Type.Array(CartItemSchema, { maxItems: 249 }))),
  metadata: Type.Optional(
    Nullable(Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 20 })),
  ),
  buyer: Type.Optional(Nullable(GuestBuyerSchema)),
  buyer_id: Type.Optional(
    Nullable(
      Uuid({
        description:
          "Extension. The stored buyer this checkout is for (404 when it is not one of the merchant account's): the fields endpoint takes only this buyer's stored cards. " +
          'Without it, a buyer.external_identifier naming a stored buyer binds the session to that buyer; a session bound to no stored buyer takes no stored card.',
      }),
    ),
  ),
  airline: Type.Optional(Nullable(AirlineSchema)),
  amount: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'Minor currency units' })),
  ),
  currency: Type.Optional(Nullable(Currency())),
  payment_service_id: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A payment service of the merchant account (404 otherwise)',
      }),
    ),
  ),
};

const ExpiresIn = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_EXPIRES_IN_SECONDS,
  description:
    'Lifetime in seconds from now (default CHECKOUT_SESSION_TTL_SECONDS, 3600); on update it restarts the clock',
});

export const CreateCheckoutSessionBody = Type.Object(
  { ...SessionFields, expires_in: Type.Optional(ExpiresIn) },
  { additionalProperties: false, title: 'CheckoutSessionCreate' },
);
export type CreateCheckoutSessionBody = Static<typeof CreateCheckoutSessionBody>;

/** The same model as create; only the fields sent change (null clears one). */
export const UpdateCheckoutSessionBody = Type.Object(
  { ...SessionFields, expires_in: Type.Optional(ExpiresIn) },
  { additionalProperties: false, title: 'CheckoutSessionUpdate' },
);
export type UpdateCheckoutSessionBody = Static<typeof UpdateCheckoutSessionBody>;

export const CheckoutSessionParams = Type.Object({ session_id: Uuid({ description: 'ID of the checkout session' }) });

/** Path of the fields endpoint: any string, so a malformed id is 401 (the credential check), never 422. */
export const CheckoutSessionFieldsParams = Type.Object({ session_id: Type.String({ maxLength: 100 }) });

export const CheckoutSessionCardFields = Type.Object(
  {
    method: Type.Literal('card'),
    number: CardNumber(),
    expiration_date: CardExpirationDate(),
    security_code: Type.Optional(Nullable(SecurityCode())),
  },
  { additionalProperties: false, title: 'CheckoutSessionCardFields' },
);
export const CheckoutSessionStoredMethodFields = Type.Object(
  {
    method: Type.Literal('id'),
    id: Uuid({ description: 'A stored card of the buyer the session is for (404 for any other card)' }),
    security_code: Type.Optional(Nullable(SecurityCode())),
  },
  { additionalProperties: false, title: 'CheckoutSessionStoredMethodFields' },
);

export const CheckoutSessionFieldsBody = Type.Object(
  {
    payment_method: Discriminated(
      'method',
      ['card', 'id'],
      [CheckoutSessionCardFields, CheckoutSessionStoredMethodFields],
    ),
  },
  { additionalProperties: false, title: 'CheckoutSessionFields' },
);
export type CheckoutSessionFieldsBody = Static<typeof CheckoutSessionFieldsBody>;

const Text = () => Type.Optional(Nullable(Type.String()));

export const CheckoutSessionPaymentMethodSchema = Type.Object(
  {
    type: Type.Literal('payment-method'),
    id: Type.Optional(Nullable(Type.String({ description: 'The stored payment method, when the session uses one' }))),
    details: Type.Optional(
      Nullable(
        Type.Object(
          {
            bin: Text(),
            card_country: Text(),
            card_type: Type.Optional(Nullable(Type.Union(CARD_TYPES.map((v) => Type.Literal(v))))),
            card_issuer_name: Text(),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    label: Type.Optional(Nullable(Type.String({ description: 'Last 4 digits of the card' }))),
    method: Type.Literal('card'),
    scheme: Text(),
    expiration_date: Text(),
    fingerprint: Text(),
  },
  { additionalProperties: false, title: 'CheckoutSessionPaymentMethod' },
);

export const CheckoutSessionSchema = Type.Object(
  {
    type: Type.Literal('checkout-session'),
    id: Type.String({ format: 'uuid' }),
    ...SessionFields,
    buyer: Type.Optional(Nullable(GuestBuyerResourceSchema)),
    expires_at: DateTime(),
    payment_method: Type.Optional(Nullable(CheckoutSessionPaymentMethodSchema)),
  },
  { additionalProperties: false, title: 'CheckoutSession' },
);
export type CheckoutSession = Static<typeof CheckoutSessionSchema>;

/**
 * The resource of a session: card data shows only as scheme, bin, last 4, expiry, fingerprint;
 * the guest buyer's personal data is masked unless `revealPii`.
 */
export function toCheckoutSessionResource(row: CheckoutSessionRow, revealPii: boolean): CheckoutSession {
  return {
    type: 'checkout-session',
    id: row.id,
    cart_items: (row.cart_items as CheckoutSession['cart_items']) ?? null,
    metadata: row.metadata ?? null,
    buyer: toGuestBuyerResource(row.buyer, revealPii),
    buyer_id: row.buyer_id,
    airline: (row.airline as CheckoutSession['airline']) ?? null,
    amount: row.amount === null ? null : Number(row.amount),
    currency: row.currency,
    payment_service_id: row.payment_service_id,
    expires_at: row.expires_at.toISOString(),
    payment_method: row.method
      ? {
          type: 'payment-method',
          id: row.payment_method_id,
          details: { bin: row.bin, card_country: null, card_type: null, card_issuer_name: null },
          label: row.last4,
          method: 'card',
          scheme: row.scheme,
          expiration_date: row.expiration_date,
          fingerprint: row.fingerprint,
        }
      : null,
  };
}

/**
 * What a client-side 3DS SDK needs of the acquirer for the session's card (the public API leaves
 * the body open): the merchant account's 3DS configuration for the card's scheme and the session's
 * currency.
 */
export const CheckoutSessionAcquirerSchema = Type.Object(
  {
    scheme: Type.String({ description: "The card scheme of the session's card", examples: ['visa'] }),
    currency: Nullable(
      Type.String({ description: "The session's currency; null when it has none", examples: ['EUR'] }),
    ),
    merchant_acquirer_bin: Type.String({ description: 'BIN of the acquirer (acquirerBIN)' }),
    merchant_acquirer_id: Type.String({
      description: 'Merchant identifier assigned by the acquirer (acquirerMerchantID)',
    }),
    merchant_name: Type.String(),
    merchant_country_code: Type.String({ description: 'ISO 3166-1 numeric country code', examples: ['840'] }),
    merchant_category_code: Type.String({ description: 'Merchant category code (MCC)', examples: ['5999'] }),
    merchant_url: Type.String(),
  },
  { additionalProperties: false, title: 'CheckoutSessionAcquirer' },
);
export type CheckoutSessionAcquirer = Static<typeof CheckoutSessionAcquirerSchema>;
