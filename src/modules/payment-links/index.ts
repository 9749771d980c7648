import type { FastifyInstance } from 'fastify';
import { createPaymentLink } from './routes/create-payment-link.ts';
import { createPaymentLinkPageApplePaySession } from './routes/create-payment-link-page-apple-pay-session.ts';
import { createPaymentLinkPageGooglePaySession } from './routes/create-payment-link-page-google-pay-session.ts';
import { createPaymentLinkPagePayment } from './routes/create-payment-link-page-payment.ts';
import { createPaymentLinkPageSession } from './routes/create-payment-link-page-session.ts';
import { createPaymentLinkPageWalletToken } from './routes/create-payment-link-page-wallet-token.ts';
import { expirePaymentLink } from './routes/expire-payment-link.ts';
import { getPaymentLink } from './routes/get-payment-link.ts';
import { getPaymentLinkPage, getPaymentLinkPageReturn } from './routes/get-payment-link-page.ts';
import { getPaymentLinkPageAsset } from './routes/get-payment-link-page-asset.ts';
import { listPaymentLinks } from './routes/list-payment-links.ts';

/** Payment links (the API) and the hosted page a buyer pays them on (no token). */
export async function paymentLinks(app: FastifyInstance): Promise<void> {
  for (const route of [createPaymentLink, listPaymentLinks, getPaymentLink, expirePaymentLink]) app.route(route);
  for (const route of [
    getPaymentLinkPage,
    getPaymentLinkPageReturn,
    getPaymentLinkPageAsset,
    createPaymentLinkPageSession,
    createPaymentLinkPagePayment,
  ])
    app.route(route);
  for (const route of [
    createPaymentLinkPageWalletToken,
    createPaymentLinkPageApplePaySession,
    createPaymentLinkPageGooglePaySession,
  ])
    app.route(route);
}
