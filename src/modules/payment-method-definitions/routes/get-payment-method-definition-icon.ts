import { defineRoute } from '../../../http/define-route.ts';
import { PaymentMethodIconParams, PaymentMethodIconSchema } from '../payment-method-definitions.schemas.ts';
import { paymentMethodIcon } from '../payment-method-definitions.service.ts';

/** Public, like any static asset: `icon_url` values must load in an `<img>` without a token. */
export const getPaymentMethodDefinitionIcon = defineRoute({
  operationId: 'getPaymentMethodDefinitionIcon',
  method: 'GET',
  url: '/assets/payment-method-definitions/:id.svg',
  scope: null,
  merchantScoped: false,
  tags: ['payment-method-definitions'],
  summary: 'The icon of a payment method (SVG); no token needed',
  status: 200,
  params: PaymentMethodIconParams,
  response: PaymentMethodIconSchema,
  handler: async ({ params, reply }) => {
    const svg = paymentMethodIcon(params.id);
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
