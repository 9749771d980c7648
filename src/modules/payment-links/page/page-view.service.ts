import type { RequestContext } from '../../../context.ts';
import type { PaymentLinkRow } from '../../../db/schema-payment-links.ts';
import { listBuyerPaymentMethods } from '../../payment-methods/buyer-payment-methods.service.ts';
import { latestTransactionOfPaymentLink } from '../../transactions/transactions.service.ts';
import { withTransactionResult } from '../../../lib/return-url.ts';
import { refreshLink, requestAudit } from '../payment-link-lifecycle.ts';
import { paymentOutcome } from '../payment-link-status.ts';
import { declineMessage, pageLocale, translator } from './i18n.ts';
import type { PageView, RedirectChoice, StoredCardChoice } from './page-render.ts';
import { findPaymentOptions } from '../../payment-options/payment-options.service.ts';
import type { PaymentOptionRequestBody } from '../../payment-options/payment-options.schemas.ts';
import { REDIRECT_METHODS } from '../../transactions/create-transaction.schema.ts';
import { issuePageToken, newNonce } from './page-security.ts';

/** What `GET /pay/{m}/{id}` (and its `/return`) shows, and with which HTTP status. */
export interface RenderedView {
  status: 200 | 404;
  view: PageView;
  /** Where the Refresh header sends the buyer (a paid link with a return_url, on return). */
  refreshTo: string | null;
}

/** The stored cards a link with a buyer_id offers (the link is that buyer's secret). */
async function storedCards(ctx: RequestContext, link: PaymentLinkRow): Promise<StoredCardChoice[]> {
  if (!link.buyer_id) return [];
  const { items } = await listBuyerPaymentMethods(ctx, { buyer_id: link.buyer_id, currency: link.currency, country: link.country, order_by: 'desc' });
  return items.filter((pm) => pm.method === 'card' && pm.label).map((pm) => ({ id: pm.id, scheme: pm.scheme ?? 'card', last4: pm.label!, expiry: pm.expiration_date ?? '' }));
}

/** The redirect methods the merchant's payment services offer for the link (payment options of mode `redirect`). */
async function redirectMethods(ctx: RequestContext, link: PaymentLinkRow): Promise<RedirectChoice[]> {
  const cartItems = (link.cart_items as PaymentOptionRequestBody['cart_items']) ?? null;
  const { items } = await findPaymentOptions(ctx, { amount: link.amount, currency: link.currency, country: link.country, cart_items: cartItems });
  return items.filter((o) => o.mode === 'redirect' && (REDIRECT_METHODS as readonly string[]).includes(o.method)).map((o) => ({ method: o.method, label: o.label ?? o.method }));
}

/** Why the buyer is back on an active link: the last payment's decline, in the link's words. */
async function returnNotice(ctx: RequestContext, link: PaymentLinkRow): Promise<string | null> {
  const payment = await latestTransactionOfPaymentLink(ctx.deps.db, ctx.merchantAccountId, link.id);
  if (!payment || paymentOutcome(payment.status) !== 'unpaid') return null;
  return translator(pageLocale(link.locale)).t(declineMessage(payment.errorCode));
}

/** The page of a link: the form while it is payable, else a page saying clearly why not. */
export async function pageView(ctx: RequestContext, id: string, base: string, returning: boolean): Promise<RenderedView> {
  const link = await refreshLink(ctx.deps, ctx.merchantAccountId, id, requestAudit(ctx));
  const empty = { tr: translator('en'), nonce: newNonce(), base, token: '', storedCards: [], redirectMethods: [], notice: null, redirectTo: null };
  if (!link) return { status: 404, view: { ...empty, state: 'not_found', link: null }, refreshTo: null };
  const view: PageView = { ...empty, tr: translator(pageLocale(link.locale)), link, state: 'pay' };
  if (link.status === 'active') {
    return { status: 200, view: { ...view, token: issuePageToken(ctx.deps, ctx.merchantAccountId, id), storedCards: await storedCards(ctx, link), redirectMethods: await redirectMethods(ctx, link), notice: returning ? await returnNotice(ctx, link) : null }, refreshTo: null };
  }
  if (link.status === 'completed' && returning && link.return_url) {
    const payment = await latestTransactionOfPaymentLink(ctx.deps.db, ctx.merchantAccountId, link.id);
    const to = payment ? withTransactionResult(link.return_url, payment.id, payment.status) : link.return_url;
    return { status: 200, view: { ...view, state: 'redirecting', redirectTo: to }, refreshTo: to };
  }
  return { status: 200, view: { ...view, state: link.status }, refreshTo: null };
}
