import { Type, type Static } from 'typebox';
import { ItemList, StringEnum } from '../../http/schemas/common.ts';
import {
  CARD_SCHEME_DISPLAY_NAMES,
  CARD_SCHEME_PATTERN,
  CARD_SCHEMES,
  cardSchemeIconPath,
  type CardScheme,
} from '../../lib/card-schemes.ts';

export const CardSchemeDefinitionSchema = Type.Object(
  {
    type: Type.Literal('card-scheme-definition'),
    id: StringEnum(CARD_SCHEMES, { description: 'The card scheme' }),
    icon_url: Type.String({
      format: 'uri',
      description: 'An SVG icon of the scheme, served by this server without a token',
      examples: ['https://api.example.com/assets/card-schemes/visa.svg'],
    }),
    display_name: Type.String({ examples: ['Visa'] }),
  },
  { additionalProperties: false, title: 'CardSchemeDefinition' },
);
export type CardSchemeDefinition = Static<typeof CardSchemeDefinitionSchema>;

export const CardSchemeDefinitionsSchema = ItemList(CardSchemeDefinitionSchema, 'CardSchemeDefinitions');

export const CardSchemeIconParams = Type.Object({
  scheme: Type.String({
    pattern: CARD_SCHEME_PATTERN,
    maxLength: 50,
    description: 'A card scheme id',
    examples: ['visa'],
  }),
});

/** The SVG body of the icon route, for OpenAPI (the route answers `image/svg+xml`, not JSON). */
export const CardSchemeIconSchema = Type.Unsafe<string>({
  description: 'The icon (SVG)',
  content: { 'image/svg+xml': { schema: { type: 'string' } } },
});

/** An absolute icon URL, so clients need not know which base URL the path is relative to. */
export function cardSchemeIconUrl(publicUrl: string, scheme: CardScheme): string {
  return `${publicUrl}${cardSchemeIconPath(scheme)}`;
}

export function toCardSchemeDefinitionResource(scheme: CardScheme, publicUrl: string): CardSchemeDefinition {
  return {
    type: 'card-scheme-definition',
    id: scheme,
    icon_url: cardSchemeIconUrl(publicUrl, scheme),
    display_name: CARD_SCHEME_DISPLAY_NAMES[scheme],
  };
}
