import { Type, type Static } from 'typebox';
import { ItemList, NullableOut } from '../../http/schemas/common.ts';
import { PAYMENT_METHOD_CATALOGUE, type PaymentMethodDefinitionId } from './payment-method-definitions.catalogue.ts';

/** No `type` field: the public API's PaymentMethodDefinition has none. */
export const PaymentMethodDefinitionSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 50,
      description: 'The method (a value of the method enumeration)',
      examples: ['card'],
    }),
    icon_url: Type.String({
      format: 'uri',
      description: 'An SVG icon of the method, served by this server without a token',
      examples: ['https://api.example.com/assets/payment-method-definitions/card.svg'],
    }),
    display_name: Type.String({ minLength: 1, maxLength: 200, examples: ['Card'] }),
    long_display_name: NullableOut(Type.String({ minLength: 1, maxLength: 200, examples: ['Credit or debit card'] })),
    method: NullableOut(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The kind of payment: card_payment, digital_wallet, gift_card, bank_redirect, direct_debit or redirect',
        examples: ['card_payment'],
      }),
    ),
  },
  { additionalProperties: false, title: 'PaymentMethodDefinition' },
);
export type PaymentMethodDefinition = Static<typeof PaymentMethodDefinitionSchema>;

export const PaymentMethodDefinitionsSchema = ItemList(PaymentMethodDefinitionSchema, 'PaymentMethodDefinitions');

export const PaymentMethodIconParams = Type.Object({
  id: Type.String({
    pattern: '^[a-z0-9]+([_-][a-z0-9]+)*$',
    maxLength: 50,
    description: 'A payment method definition id',
    examples: ['card'],
  }),
});

/** The SVG body of the icon route, for OpenAPI (the route answers `image/svg+xml`, not JSON). */
export const PaymentMethodIconSchema = Type.Unsafe<string>({
  description: 'The icon (SVG)',
  content: { 'image/svg+xml': { schema: { type: 'string' } } },
});

/** Where the server serves a method's icon (relative to its public URL). */
export const paymentMethodIconPath = (id: PaymentMethodDefinitionId) => `/assets/payment-method-definitions/${id}.svg`;

/** `icon_url` is absolute, as card scheme icons are: clients need not guess its base. */
export function toPaymentMethodDefinitionResource(
  id: PaymentMethodDefinitionId,
  publicUrl: string,
): PaymentMethodDefinition {
  const entry = PAYMENT_METHOD_CATALOGUE[id];
  return {
    id,
    icon_url: `${publicUrl}${paymentMethodIconPath(id)}`,
    display_name: entry.displayName,
    long_display_name: entry.longDisplayName,
    method: entry.kind,
  };
}
