import { Type, type Static } from 'typebox';
import { AirlineSchema, CartItemSchema, GuestBuyerSchema } from '../../http/schemas/checkout.ts';
import { MinorUnits, Nullable, StringEnum } from '../../http/schemas/common.ts';
import { Discriminated, KeyPresence } from '../../http/schemas/discriminated.ts';
import {
  CardExpirationDate,
  CardNumber,
  CARD_TYPES,
  SecurityCode,
} from '../payment-methods/payment-methods.schemas.ts';
import { PAYMENT_SOURCES, RecipientSchema, StatementDescriptorSchema } from './transaction.schema.ts';

/** `POST /transactions` body (TransactionCreate). */

const ExternalIdentifier = () => Type.String({ minLength: 1, maxLength: 200 });
const Opt = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));
const RedirectUrl = () =>
  Opt(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'Where the buyer returns after an approval step (3DS, redirect methods)',
    }),
  );
const Uuid = (description: string) => Type.String({ format: 'uuid', description });

export const CardForm = Type.Object(
  {
    method: Type.Literal('card'),
    number: CardNumber(),
    expiration_date: CardExpirationDate(),
    security_code: Opt(SecurityCode()),
    card_type: Opt(StringEnum(CARD_TYPES)),
    external_identifier: Opt(ExternalIdentifier()),
    buyer_id: Opt(Uuid('Stored buyer to attach the stored card to (with store: true)')),
    buyer_external_identifier: Opt(ExternalIdentifier()),
    redirect_url: RedirectUrl(),
  },
  { additionalProperties: false, title: 'CardWithUrlPaymentMethodCreate' },
);

export const StoredForm = Type.Object(
  {
    method: Type.Literal('id'),
    id: Uuid('A stored payment method'),
    security_code: Opt(SecurityCode()),
    redirect_url: RedirectUrl(),
  },
  { additionalProperties: false, title: 'TokenPaymentMethodCreate' },
);

export const CheckoutSessionForm = Type.Object(
  {
    method: Type.Literal('checkout-session'),
    id: Uuid('A checkout session whose fields hold the card'),
    external_identifier: Opt(ExternalIdentifier()),
    buyer_id: Opt(Uuid('Stored buyer')),
    buyer_external_identifier: Opt(ExternalIdentifier()),
    redirect_url: RedirectUrl(),
  },
  { additionalProperties: false, title: 'CheckoutSessionWithUrlPaymentMethodCreate' },
);

export const NetworkTokenForm = Type.Object(
  {
    method: Type.Literal('network-token'),
    token: Type.String({ pattern: '^\\d{13,19}$', description: 'The network token number' }),
    expiration_date: CardExpirationDate(),
    cryptogram: Opt(Type.String({ minLength: 1, maxLength: 200 })),
    redirect_url: RedirectUrl(),
    card_source: Opt(StringEnum(['apple-pay', 'google-pay'] as const)),
    card_scheme: Opt(Type.String()),
    card_suffix: Opt(Type.String({ pattern: '^\\d{4}$' })),
    cardholder_name: Opt(Type.String({ maxLength: 200 })),
    eci: Opt(Type.String({ maxLength: 2 })),
  },
  { additionalProperties: false, title: 'NetworkTokenPaymentMethodCreate' },
);

/** Optional fields the wallet forms share (ApplePayPaymentMethodCreate, GooglePayPaymentMethodCreate). */
const walletFields = {
  card_suffix: Opt(
    Type.String({ pattern: '^\\d{4}$', description: 'Last 4 digits of the card as the wallet shows it' }),
  ),
  card_scheme: Opt(Type.String({ maxLength: 50 })),
  card_type: Opt(Type.String({ maxLength: 50 })),
  cardholder_name: Opt(Type.String({ maxLength: 200 })),
  buyer_id: Opt(Uuid('Stored buyer')),
  buyer_external_identifier: Opt(ExternalIdentifier()),
  redirect_url: RedirectUrl(),
};

export const ApplePayForm = Type.Object(
  {
    method: Type.Literal('applepay'),
    token: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The payment token object Apple Pay JS gives (`payment.token`), as is',
    }),
    ...walletFields,
  },
  { additionalProperties: false, title: 'ApplePayPaymentMethodCreate' },
);

export const GooglePayForm = Type.Object(
  {
    method: Type.Literal('googlepay'),
    token: Type.Union([Type.String({ minLength: 1, maxLength: 20_000 }), Type.Record(Type.String(), Type.Unknown())], {
      description:
        'The Google Pay payment token (paymentMethodData.tokenizationData.token): its JSON text or the parsed object',
    }),
    assurance_details: Opt(
      Type.Object(
        { account_verified: Opt(Type.Boolean()), card_holder_authenticated: Opt(Type.Boolean()) },
        { additionalProperties: false, title: 'GooglePayAssuranceDetails' },
      ),
    ),
    ...walletFields,
  },
  { additionalProperties: false, title: 'GooglePayPaymentMethodCreate' },
);

export const GooglePayPanOnlyForm = Type.Object(
  {
    method: Type.Literal('googlepay_pan_only'),
    number: CardNumber(),
    expiration_date: CardExpirationDate(),
    security_code: Opt(SecurityCode()),
    card_type: Opt(StringEnum(CARD_TYPES)),
    external_identifier: Opt(ExternalIdentifier()),
    buyer_id: Opt(Uuid('Stored buyer')),
    buyer_external_identifier: Opt(ExternalIdentifier()),
    redirect_url: RedirectUrl(),
  },
  {
    additionalProperties: false,
    title: 'GooglePayFPANPaymentMethodCreate',
    description: 'A Google Pay PAN_ONLY card the merchant decrypted itself',
  },
);

/** Optional fields of the Click to Pay and Paze forms (models.md). */
const buyerFields = {
  buyer_id: Opt(Uuid('Stored buyer')),
  buyer_external_identifier: Opt(ExternalIdentifier()),
  external_identifier: Opt(ExternalIdentifier()),
  redirect_url: RedirectUrl(),
};

export const PazeForm = Type.Object(
  {
    method: Type.Literal('paze'),
    token: Type.String({
      minLength: 1,
      maxLength: 20_000,
      description: 'The completeResponse of the Paze checkout (a JWS): verified and decrypted by this server',
    }),
    checkout_token: Opt(
      Type.String({
        minLength: 1,
        maxLength: 20_000,
        description:
          "The JWS of Paze's checkout response, optional: when sent it must be signed by Paze, unexpired and of the same session",
      }),
    ),
    ...buyerFields,
  },
  { additionalProperties: false, title: 'PazePaymentMethodCreate' },
);

const ClickToPayTokenForm = Type.Object(
  {
    method: Type.Literal('click-to-pay'),
    token: Type.String({ pattern: '^\\d{13,19}$', description: 'The network token (device PAN) Click to Pay gave' }),
    cryptogram: Type.String({ minLength: 1, maxLength: 200, description: 'Its cryptogram' }),
    expiration_date: CardExpirationDate(),
    ...buyerFields,
  },
  { additionalProperties: false, title: 'ClickToPayPaymentMethodCreate' },
);

const ClickToPayCardForm = Type.Object(
  {
    method: Type.Literal('click-to-pay'),
    number: CardNumber(),
    expiration_date: CardExpirationDate(),
    security_code: Opt(SecurityCode()),
    card_type: Opt(StringEnum(CARD_TYPES)),
    ...buyerFields,
  },
  {
    additionalProperties: false,
    title: 'ClickToPayFPANPaymentMethodCreate',
    description: 'A Click to Pay card number (FPAN)',
  },
);

/** Click to Pay: a card number when `number` is present, else a device token with its cryptogram (models.md). */
export const ClickToPayForm = KeyPresence('number', ClickToPayCardForm, ClickToPayTokenForm);

/** Methods whose instrument is a card or a device token, routed to card payment services. */
export const CARD_LIKE_METHODS = new Set(['card', 'network-token', 'applepay', 'googlepay', 'paze', 'click-to-pay']);

/**
 * Redirect methods this server accepts: the neutral members of the method enumeration, and the
 * third-party products a real connector serves (`paypal`: paypal-paypal; `pix`: dlocal-pix, whose
 * buyer pays a PIX code instead of visiting a page; `gocardless`: gocardless-gocardless; `ideal`: adyen-ideal; `sepa`:
 * adyen-sepa, on Adyen's Hosted Checkout page; `klarna`: adyen-klarna). A payment service of the
 * method must exist for one to be routed.
 */
export const REDIRECT_METHODS = [
  'paybybank',
  'netbanking',
  'sepa',
  'ach',
  'bacs',
  'becs',
  'custom_redirect',
  'paypal',
  'pix',
  'gocardless',
  'ideal',
  'klarna',
] as const;

const redirectForm = (method: (typeof REDIRECT_METHODS)[number]) =>
  Type.Object(
    {
      method: Type.Literal(method),
      country: Type.String({ pattern: '^[A-Z]{2}$', format: 'iso-3166-alpha-2' }),
      currency: Type.String({ pattern: '^[A-Z]{3}$', format: 'iso-4217' }),
      redirect_url: Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'Where the buyer returns after the approval page',
      }),
      external_identifier: Opt(ExternalIdentifier()),
      buyer_id: Opt(Uuid('Stored buyer')),
      buyer_external_identifier: Opt(ExternalIdentifier()),
    },
    { additionalProperties: false, title: 'RedirectPaymentMethodCreate' },
  );
const RedirectForms = REDIRECT_METHODS.map(redirectForm);

export const TransactionPaymentMethodBody = Discriminated(
  'method',
  [
    'card',
    'id',
    'checkout-session',
    'network-token',
    'applepay',
    'googlepay',
    'googlepay_pan_only',
    'paze',
    'click-to-pay',
    ...REDIRECT_METHODS,
  ],
  [
    CardForm,
    StoredForm,
    CheckoutSessionForm,
    NetworkTokenForm,
    ApplePayForm,
    GooglePayForm,
    GooglePayPanOnlyForm,
    PazeForm,
    ClickToPayForm,
    ...RedirectForms,
  ],
  {
    title: 'TransactionPaymentMethodCreate',
    description:
      'How the buyer pays: a card, a stored payment method (`id`), a checkout session, a network token, an Apple Pay, Google Pay or Paze token (decrypted by this server), a Google Pay PAN_ONLY card, a Click to Pay device token or card number, or a redirect method (the buyer approves on a page)',
  },
);
export type TransactionPaymentMethodBody = Static<typeof TransactionPaymentMethodBody>;

const ThreeDSecureData = Type.Object(
  {
    cavv: Type.String({ minLength: 1, maxLength: 100 }),
    eci: Type.String({ minLength: 1, maxLength: 2 }),
    version: Type.String({ minLength: 1, maxLength: 10 }),
    directory_response: Type.String({ minLength: 1, maxLength: 2 }),
    scheme: Opt(Type.String()),
    authentication_response: Opt(Type.String({ maxLength: 2 })),
    cavv_algorithm: Opt(Type.String({ maxLength: 2 })),
    xid: Opt(Type.String({ maxLength: 100 })),
    directory_transaction_id: Opt(Type.String({ maxLength: 100 })),
  },
  {
    additionalProperties: false,
    title: 'ThreeDSecureData',
    description:
      'Result of a 3DS authentication done elsewhere (v1: xid, cavv_algorithm, authentication_response; v2: directory_transaction_id)',
  },
);

const BrowserInfo = Type.Object(
  {
    javascript_enabled: Type.Boolean(),
    java_enabled: Type.Boolean(),
    language: Type.String({ maxLength: 35 }),
    color_depth: Type.Integer(),
    screen_height: Type.Integer(),
    screen_width: Type.Integer(),
    time_zone_offset: Type.Integer(),
    user_agent: Type.String({ maxLength: 2048 }),
    user_device: StringEnum(['desktop', 'mobile'] as const),
    accept_header: Opt(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false, title: 'BrowserInfo' },
);

/** A gift card of the transaction: `number` + `pin`, or a stored card's `id`; `amount` to redeem from it. */
const GiftCardItem = Type.Object(
  {
    number: Type.Optional(Type.String({ pattern: '^\\d{16,19}$' })),
    pin: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    id: Type.Optional(Type.String({ format: 'uuid' })),
    amount: MinorUnits({ minimum: 1, maximum: 99999999 }),
  },
  {
    additionalProperties: false,
    title: 'GiftCardTransactionCreate',
    description: 'Either number and pin (GiftCardTransactionCreate) or id (GiftCardTokenTransactionCreate)',
  },
);

const Minor = () => Opt(MinorUnits({ minimum: 0, maximum: 99999999 }));

export const CreateTransactionBody = Type.Object(
  {
    amount: MinorUnits({
      minimum: 0,
      maximum: 99999999,
      description: 'Minor currency units; total across gift cards and the payment method',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', format: 'iso-4217' }),
    country: Opt(Type.String({ pattern: '^[A-Z]{2}$', format: 'iso-3166-alpha-2' })),
    payment_method: Opt(TransactionPaymentMethodBody),
    buyer: Opt(GuestBuyerSchema),
    buyer_id: Opt(Uuid('A stored buyer')),
    buyer_external_identifier: Opt(ExternalIdentifier()),
    gift_cards: Opt(
      Type.Array(GiftCardItem, {
        maxItems: 10,
        description: 'Gift cards redeemed first; the payment method is authorized for the rest of amount',
      }),
    ),
    external_identifier: Opt(ExternalIdentifier()),
    intent: Type.Optional(StringEnum(['authorize', 'capture'] as const, { default: 'authorize' })),
    store: Type.Optional(Type.Boolean({ default: false })),
    three_d_secure_data: Opt(ThreeDSecureData),
    three_d_secure: Opt(Type.Object({ amount: Opt(MinorUnits({ minimum: 0 })) }, { additionalProperties: false })),
    metadata: Opt(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 50 })),
    is_subsequent_payment: Type.Optional(Type.Boolean({ default: false })),
    merchant_initiated: Type.Optional(Type.Boolean({ default: false })),
    payment_source: Type.Optional(StringEnum(PAYMENT_SOURCES, { default: 'ecommerce' })),
    airline: Opt(AirlineSchema),
    cart_items: Opt(Type.Array(CartItemSchema, { maxItems: 249 })),
    statement_descriptor: Opt(StatementDescriptorSchema),
    previous_scheme_transaction_id: Opt(Type.String({ maxLength: 100 })),
    browser_info: Opt(BrowserInfo),
    shipping_details_id: Opt(Uuid('Stored shipping details of the buyer; the transaction keeps a copy')),
    connection_options: Opt(Type.Record(Type.String(), Type.Unknown())),
    async_capture: Type.Optional(Type.Boolean({ default: false })),
    anti_fraud_fingerprint: Opt(Type.String({ maxLength: 200 })),
    payment_service_id: Opt(Uuid('Forces this payment service and skips routing')),
    account_funding_transaction: Type.Optional(Type.Boolean({ default: false })),
    allow_partial_authorization: Type.Optional(Type.Boolean({ default: false })),
    recipient: Opt(RecipientSchema),
    installment_count: Opt(Type.Integer({ minimum: 1, maximum: 999 })),
    tax_amount: Minor(),
    merchant_tax_id: Opt(Type.String({ maxLength: 100 })),
    purchase_order_number: Opt(Type.String({ maxLength: 100 })),
    customer_reference_number: Opt(Type.String({ maxLength: 100 })),
    amount_includes_tax: Opt(Type.Boolean()),
    supplier_order_number: Opt(Type.String({ maxLength: 100 })),
    duty_amount: Minor(),
    shipping_amount: Minor(),
    integration_client: Opt(StringEnum(['redirect', 'web', 'android', 'ios'] as const)),
  },
  { additionalProperties: false, title: 'TransactionCreate' },
);
export type CreateTransactionBody = Static<typeof CreateTransactionBody>;

export const UpdateTransactionBody = Type.Object(
  {
    external_identifier: Opt(ExternalIdentifier()),
    metadata: Opt(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 50 })),
    connection_options: Opt(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false, title: 'TransactionUpdate' },
);
export type UpdateTransactionBody = Static<typeof UpdateTransactionBody>;

export const CaptureTransactionBody = Type.Object(
  {
    amount: Opt(
      MinorUnits({
        minimum: 0,
        maximum: 99999999,
        description: 'Minor currency units; omitted: the rest of the authorized amount',
      }),
    ),
    airline: Opt(AirlineSchema),
    cart_items: Opt(Type.Array(CartItemSchema, { maxItems: 249 })),
    final: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'False leaves the transaction open for further captures (multi-capture connections only)',
      }),
    ),
    external_identifier: Opt(Type.String({ minLength: 1, maxLength: 300 })),
  },
  { additionalProperties: false, title: 'TransactionCaptureCreate' },
);
export type CaptureTransactionBody = Static<typeof CaptureTransactionBody>;

export const TransactionParams = Type.Object({
  transaction_id: Type.String({ format: 'uuid', description: 'ID of the transaction' }),
});
