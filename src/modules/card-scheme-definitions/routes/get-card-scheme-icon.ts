import { defineRoute } from '../../../http/define-route.ts';
import { CardSchemeIconParams, CardSchemeIconSchema } from '../card-scheme-definitions.schemas.ts';
import { cardSchemeIcon } from '../card-scheme-definitions.service.ts';

/** Public, like any static asset: `icon_url` values must load in an `<img>` without a token. */
export const getCardSchemeIcon = defineRoute({
  operationId: 'getCardSchemeIcon',
  method: 'GET',
  url: '/assets/card-schemes/:scheme.svg',
  scope: null,
  merchantScoped: false,
  tags: ['card-scheme-definitions'],
  summary: 'The icon of a card scheme (SVG); no token needed',
  status: 200,
  params: CardSchemeIconParams,
  response: CardSchemeIconSchema,
  handler: async ({ params, reply }) => {
    const svg = cardSchemeIcon(params.scheme);
    reply.headers({
      'content-type': 'image/svg+xml; charset=utf-8',
      'cache-control': 'public, max-age=86400',
      // An SVG opened directly is a document: it may run nothing and load nothing.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
    });
    return svg;
  },
});
