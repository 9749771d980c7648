import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas/common.ts';
import { CARD_SCHEMES, CARD_TYPES } from '../../lib/card-schemes.ts';

/**
 * `bin` is checked by the service, not by a pattern: a full card number sent by mistake must get a
 * message that says to send the BIN only, which a pattern mismatch cannot say.
 */
export const GetCardDetailsQuery = Type.Object(
  {
    bin: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The BIN: the first 6 to 8 digits of the card number (8 for numbers of 16 digits or more). Never the full card number.',
      examples: ['41111111'],
    }),
  },
  { additionalProperties: false },
);
export type GetCardDetailsQuery = Static<typeof GetCardDetailsQuery>;

export const CardDetailSchema = Type.Object(
  {
    type: Type.Literal('card-detail'),
    id: Type.String({ description: 'The BIN looked up', examples: ['41111111'] }),
    scheme: StringEnum(CARD_SCHEMES, {
      description: 'The card scheme, from the IIN ranges (`other` when no range matches)',
    }),
    additional_schemes: Type.Array(StringEnum(CARD_SCHEMES), {
      description: 'Other networks that accept a co-badged card',
    }),
    scheme_icon_url: Type.String({
      format: 'uri',
      description: 'The icon of the scheme (see GET /card-scheme-definitions)',
    }),
    card_type: Nullable(
      StringEnum(CARD_TYPES, { description: 'Credit, debit or prepaid; null while the server has no issuer BIN data' }),
    ),
    country: Nullable(
      Type.String({
        description:
          'Issuing country (ISO 3166-1 alpha-2) where the BIN range settles it (domestic schemes), else null',
        examples: ['BR'],
      }),
    ),
    number_lengths: Type.Array(Type.Integer({ minimum: 12, maximum: 19 }), {
      description: 'Card number lengths the scheme allows',
      examples: [[13, 16, 19]],
    }),
  },
  { additionalProperties: false, title: 'CardDetail' },
);
export type CardDetail = Static<typeof CardDetailSchema>;
