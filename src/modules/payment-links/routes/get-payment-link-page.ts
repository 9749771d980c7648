import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { pageView } from '../page/page-view.service.ts';
import { Html, htmlErrors, pageContext, PageParams, pagePath, sendView } from './page-support.ts';

const page = (returning: boolean) => ({
  ...defineRoute({
    operationId: returning ? 'getPaymentLinkPageReturn' : 'getPaymentLinkPage',
    method: 'GET',
    url: `/pay/:merchant_account_id/:payment_link_id${returning ? '/return' : ''}`,
    scope: null,
    merchantScoped: false,
    tags: ['payment-links'],
    summary: returning
      ? "Where the buyer comes back to from a 3DS challenge or a redirect method's approval page (no token)"
      : "The hosted payment page of a payment link (the link's url; no token: the random link id is the secret)",
    description: returning
      ? 'Settles the link from its payment, then sends the buyer on to return_url (with transaction_id and transaction_status) once paid, or shows the form again with why the payment was declined.'
      : "In the link's locale (en, en-GB, es, pt, pt-BR; others fall back to English): the merchant's branding, the cart and the amount, and a card form whose card goes to a checkout session's fields endpoint. " +
        'A completed, expired or processing link shows a page saying so and takes no payment. Strict Content-Security-Policy, no framing, no referrer.',
    status: 200,
    params: PageParams,
    ...(returning
      ? {
          querystring: Type.Object(
            {
              transaction_id: Type.Optional(Type.String({ maxLength: 100 })),
              transaction_status: Type.Optional(Type.String({ maxLength: 100 })),
            },
            { description: 'Added by the approval page; the link reads its payment itself' },
          ),
        }
      : {}),
    response: Html,
    handler: async ({ ctx, params, request, reply }) => {
      const scoped = pageContext(ctx, params.merchant_account_id);
      return sendView(
        scoped,
        request,
        reply,
        await pageView(scoped, params.payment_link_id, pagePath(params), returning),
      );
    },
  }),
  errorHandler: htmlErrors,
});

export const getPaymentLinkPage = page(false);
export const getPaymentLinkPageReturn = page(true);
