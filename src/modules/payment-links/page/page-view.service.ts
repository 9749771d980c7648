import type { RequestContext } from '../../../context.ts';
import type { PaymentLinkRow } from '../../../db/schema-payment-links.ts';
import { listBuyerPaymentMethods } from '../../payment-methods/buyer-payment-methods.service.ts';
import { latestTransactionOfPaymentLink } from '../../transactions/transactions.service.ts';
import { withTransactionResult } from '../../../lib/return-url.ts';
import { refreshLink, requestAudit } from '../payment-link-lifecycle.ts';
import { paymentOutcome } from '../payment-link-status.ts';
import { declineMessage, pageLocale, translator } from './i18n.ts';
import type { PageView, RedirectChoice, StoredCardChoice } from './page-render.ts';
import { pageRedirectOptions } from '../link-redirects.ts';
import { linkOptions, pageWallets } from '../link-wallets.ts';
import type { WalletButton } from './page-wallets-render.ts';
import { applePayRequest } from './wallet-requests.ts';
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
  const { items } = await listBuyerPaymentMethods(ctx, {
    buyer_id: link.buyer_id,
    currency: link.currency,
    country: link.country,
    order_by: 'desc',
  });
  return items
    .filter((pm) => pm.method === 'card' && pm.label)
    .map((pm) => ({ id: pm.id, scheme: pm.scheme ?? 'card', last4: pm.label!, expiry: pm.expiration_date ?? '' }));
}

/**
 * What the link's payment options offer besides the card form: the redirect methods (options of
 * mode `redirect`) and the wallets this environment can run (link-wallets.ts).
 */
async function otherChoices(
  ctx: RequestContext,
  link: PaymentLinkRow,
): Promise<{ redirectMethods: RedirectChoice[]; wallets: WalletButton[] }> {
  const options = await linkOptions(ctx, link);
  const redirectMethods = pageRedirectOptions(options).map((o) => ({ method: o.method, label: o.label ?? o.method }));
  const wallets = (await pageWallets(ctx, link, options)).map((w) => ({
    method: w.method,
    label: w.label,
    appleRequest: w.method === 'applepay' ? applePayRequest(link, w.wallet, w.schemes) : null,
  }));
  return { redirectMethods, wallets };
}

/** Why the buyer is back on an active link: the last payment's decline, in the link's words. */
async function returnNotice(ctx: RequestContext, link: PaymentLinkRow): Promise<string | null> {
  const payment = await latestTransactionOfPaymentLink(ctx.deps.db, ctx.merchantAccountId, link.id);
  if (!payment || paymentOutcome(payment.status) !== 'unpaid') return null;
  return translator(pageLocale(link.locale)).t(declineMessage(payment.errorCode));
}

/** The page of a link: the form while it is payable, else a page saying clearly why not. */
export async function pageView(
  ctx: RequestContext,
  id: string,
  base: string,
  returning: boolean,
): Promise<RenderedView> {
  const link = await refreshLink(ctx.deps, ctx.merchantAccountId, id, requestAudit(ctx));
  const walletMode = ctx.deps.config.environment;
  const empty = {
    tr: translator('en'),
    nonce: newNonce(),
    base,
    token: '',
    storedCards: [],
    redirectMethods: [],
    wallets: [],
    walletMode,
    notice: null,
    redirectTo: null,
  };
  if (!link) return { status: 404, view: { ...empty, state: 'not_found', link: null }, refreshTo: null };
  const view: PageView = { ...empty, tr: translator(pageLocale(link.locale)), link, state: 'pay' };
  if (link.status === 'active') {
    const choices = await otherChoices(ctx, link);
    return {
      status: 200,
      view: {
        ...view,
        ...choices,
        token: issuePageToken(ctx.deps, ctx.merchantAccountId, id),
        storedCards: await storedCards(ctx, link),
        notice: returning ? await returnNotice(ctx, link) : null,
      },
      refreshTo: null,
    };
  }
  if (link.status === 'completed' && returning && link.return_url) {
    const payment = await latestTransactionOfPaymentLink(ctx.deps.db, ctx.merchantAccountId, link.id);
    const to = payment ? withTransactionResult(link.return_url, payment.id, payment.status) : link.return_url;
    return { status: 200, view: { ...view, state: 'redirecting', redirectTo: to }, refreshTo: to };
  }
  return { status: 200, view: { ...view, state: link.status }, refreshTo: null };
}
