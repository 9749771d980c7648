import { Type, type Static } from 'typebox';
import { CartItemSchema } from '../../http/schemas/checkout.ts';
import { Country, Currency, Nullable, StringEnum } from '../../http/schemas/common.ts';

const Opt = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema));

export const MODES = [
  'card',
  'redirect',
  'applepay',
  'googlepay',
  'checkout-session',
  'click-to-pay',
  'gift-card',
  'bank',
] as const;

export const PaymentOptionRequestBody = Type.Object(
  {
    metadata: Opt(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 50 })),
    country: Opt(Country({ description: "The buyer's country: only services accepting it are offered" })),
    currency: Opt(Currency({ description: 'Only services accepting this currency are offered' })),
    amount: Opt(Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'Minor currency units' })),
    locale: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 10,
        pattern: '^[a-z]{2}(-[A-Z]{2})?$',
        default: 'en',
        description: 'Language of the labels (they are English for now)',
      }),
    ),
    cart_items: Opt(
      Type.Array(CartItemSchema, {
        maxItems: 249,
        description: 'Services whose definition requires cart items, or allows fewer than these, are left out',
      }),
    ),
    // Not in the model: accepted so that an embed token's pins (http/embed.ts) can apply to this body.
    buyer_id: Opt(
      Type.String({ format: 'uuid', description: 'Accepted for embed tokens that pin it; not used to choose options' }),
    ),
    buyer_external_identifier: Opt(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Accepted for embed tokens that pin it; not used to choose options',
      }),
    ),
    connection_options: Opt(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Accepted for embed tokens that pin it; not used to choose options',
      }),
    ),
  },
  { additionalProperties: false, title: 'PaymentOptionRequest' },
);
export type PaymentOptionRequestBody = Static<typeof PaymentOptionRequestBody>;

export const GooglePayContextSchema = Type.Object(
  {
    merchant_name: Type.String(),
    supported_schemes: Type.Array(Type.String()),
    gateway: Type.String(),
    gateway_merchant_id: Type.String(),
  },
  { additionalProperties: false, title: 'GooglePayPaymentOptionContext' },
);
export const WalletContextSchema = Type.Object(
  { merchant_name: Type.String(), supported_schemes: Type.Array(Type.String()) },
  { additionalProperties: false, title: 'WalletPaymentOptionContext' },
);
export const RedirectContextSchema = Type.Object(
  {
    approval_ui: Opt(
      Type.Object(
        { height: Opt(Type.String()), width: Opt(Type.String()) },
        { additionalProperties: false, title: 'PaymentOptionContextApprovalUI' },
      ),
    ),
    required_fields: Opt(
      Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.Record(Type.String(), Type.Unknown())])),
    ),
    redirect_requires_popup: Type.Boolean(),
    requires_tokenized_redirect_popup: Type.Boolean(),
  },
  { additionalProperties: false, title: 'PaymentOptionContext' },
);

export const PaymentOptionSchema = Type.Object(
  {
    type: Type.Literal('payment-option'),
    method: Type.String(),
    icon_url: Nullable(Type.String()),
    mode: StringEnum(MODES),
    label: Nullable(Type.String()),
    can_store_payment_method: Type.Boolean({
      description: "Whether the buyer's payment method can be stored for later payments",
    }),
    can_delay_capture: Type.Boolean({ description: 'Whether a payment can be authorized now and captured later' }),
    context: Nullable(Type.Union([GooglePayContextSchema, WalletContextSchema, RedirectContextSchema])),
  },
  { additionalProperties: false, title: 'PaymentOption' },
);
export type PaymentOption = Static<typeof PaymentOptionSchema>;
export type PaymentOptionContext = PaymentOption['context'];

export const PaymentOptionsSchema = Type.Object(
  { items: Type.Array(PaymentOptionSchema) },
  { additionalProperties: false, title: 'PaymentOptions' },
);
export type PaymentOptions = Static<typeof PaymentOptionsSchema>;
