import type { RequestContext } from '../../context.ts';
import { notFound } from '../../errors/app-error.ts';
import { CARD_SCHEMES, isCardScheme, renderCardSchemeIcon, type CardScheme } from '../../lib/card-schemes.ts';
import {
  cardSchemeIconUrl,
  toCardSchemeDefinitionResource,
  type CardSchemeDefinition,
} from './card-scheme-definitions.schemas.ts';

/** Every scheme the server knows, `other` included (its icon is a generic card). */
export async function listCardSchemeDefinitions(ctx: RequestContext): Promise<{ items: CardSchemeDefinition[] }> {
  return { items: CARD_SCHEMES.map((scheme) => toCardSchemeDefinitionResource(scheme, ctx.deps.config.publicUrl)) };
}

/** For other modules (card details, payment methods): the icon URL of a scheme. */
export function schemeIconUrl(ctx: RequestContext, scheme: CardScheme): string {
  return cardSchemeIconUrl(ctx.deps.config.publicUrl, scheme);
}

/** The SVG of a scheme's icon; 404 for an id that is not a known scheme. */
export function cardSchemeIcon(scheme: string): string {
  if (!isCardScheme(scheme)) throw notFound('card scheme icon', scheme);
  return renderCardSchemeIcon(scheme);
}
