import type { RequestContext } from '../../context.ts';
import type { PaymentLinkRow } from '../../db/schema-payment-links.ts';
import { withTransaction } from '../../db/transaction.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { withTransactionResult } from '../../lib/return-url.ts';
import { createCheckoutSession, getCheckoutSession } from '../checkout-sessions/checkout-sessions.service.ts';
import { findStoredCard } from '../payment-methods/stored-cards.service.ts';
import type { CreateTransactionBody, REDIRECT_METHODS } from '../transactions/create-transaction.schema.ts';
import { createTransaction } from '../transactions/create/create-transaction.service.ts';
import type { Transaction } from '../transactions/transaction.schema.ts';
import { changeStatus, refreshLink, reopenUnpaid, requestAudit, settleLocked } from './payment-link-lifecycle.ts';
import { isWalletMethod, requireOfferedWallet, type WalletMethod } from './link-wallets.ts';
import { requireOfferedRedirect } from './link-redirects.ts';
import { paymentOutcome, payRefusal } from './payment-link-status.ts';
import { linkNotPayable } from './payment-links.errors.ts';
import * as repo from './payment-links.repo.ts';
import { declineMessage, pageLocale, translator } from './page/i18n.ts';

/**
 * What the hosted page's script calls (docs/payment-links.md, "Paying on the page"): a checkout
 * session for the card, then the payment, which is a normal transaction made under the link's
 * row lock discipline: the link is claimed (`processing`) in one database transaction, the
 * transaction is created outside it (connector calls never run under a lock), and the link is
 * settled from the transaction's status in another.
 */

/** How long the page's checkout session (and the card data it holds) lives. */
const SESSION_TTL_SECONDS = 30 * 60;

/** The link, up to date, if a payment may start now; 404 unknown, 400 not payable. */
export async function payableLink(ctx: RequestContext, id: string): Promise<PaymentLinkRow> {
  const row = await refreshLink(ctx.deps, ctx.merchantAccountId, id, requestAudit(ctx));
  if (!row) throw notFound('payment link', id);
  const refusal = payRefusal(row, new Date());
  if (refusal) throw linkNotPayable(refusal);
  return row;
}

/**
 * `POST /pay/{m}/{id}/sessions`: a fresh checkout session for the card (the spec: one per checkout),
 * for the link's stored buyer if it has one: its fields then take that buyer's stored cards only.
 */
export async function startPageSession(ctx: RequestContext, id: string): Promise<{ id: string }> {
  const link = await payableLink(ctx, id);
  const cartItems = (link.cart_items as CreateTransactionBody['cart_items']) ?? null;
  const session = await createCheckoutSession(ctx, {
    amount: link.amount,
    currency: link.currency,
    cart_items: cartItems,
    buyer_id: link.buyer_id,
    expires_in: SESSION_TTL_SECONDS,
  });
  return { id: session.id };
}

/** The session must hold a card; a stored card only of the link's own buyer (the link is that buyer's secret). */
async function checkSessionCard(ctx: RequestContext, link: PaymentLinkRow, sessionId: string): Promise<void> {
  const session = await getCheckoutSession(ctx, sessionId);
  const pm = session.payment_method;
  if (!pm)
    throw fieldRefusal(
      'body',
      '/checkout_session_id',
      'The checkout session holds no card: send the card to its fields endpoint first',
    );
  if (!pm.id) return;
  const stored = link.buyer_id ? await findStoredCard(ctx.deps.db, ctx, pm.id) : null;
  if (!stored || stored.buyer_id !== link.buyer_id)
    throw fieldRefusal(
      'body',
      '/checkout_session_id',
      'This payment link cannot be paid with that stored payment method',
    );
}

/** Under the row lock: active → processing. Of two buyers paying at once, the second finds it processing. */
async function claim(ctx: RequestContext, id: string): Promise<PaymentLinkRow> {
  const audit = requestAudit(ctx);
  const result = await withTransaction(ctx.deps.db, async (tx) => {
    const found = await repo.findPaymentLink(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!found) throw notFound('payment link', id);
    const row = await settleLocked(tx, ctx.deps, found, audit);
    const refusal = payRefusal(row, new Date());
    return refusal
      ? { refusal, row: null }
      : { refusal: null, row: await changeStatus(tx, ctx.deps, row, 'processing', audit, { transaction_id: null }) };
  });
  if (result.refusal) throw linkNotPayable(result.refusal);
  return result.row!;
}

/** How the buyer pays: the card in the page's checkout session, a redirect method, or a wallet's token. */
export interface PagePayment {
  checkout_session_id?: string | null;
  method?: (typeof REDIRECT_METHODS)[number] | WalletMethod | null;
  /** The wallet's payment token (Apple Pay JS `payment.token`, Google Pay's tokenizationData.token). */
  token?: string | Record<string, unknown> | null;
  /** The last four digits the wallet shows for its card. */
  card_suffix?: string | null;
  cardholder_name?: string | null;
}

function paymentMethodOf(
  link: PaymentLinkRow,
  payment: PagePayment,
  redirectUrl: string,
): CreateTransactionBody['payment_method'] {
  const method = payment.method;
  if (method === 'applepay')
    return {
      method,
      token: payment.token as Record<string, unknown>,
      card_suffix: payment.card_suffix ?? null,
      redirect_url: redirectUrl,
    };
  if (method === 'googlepay')
    return { method, token: payment.token!, card_suffix: payment.card_suffix ?? null, redirect_url: redirectUrl };
  if (method) return { method, country: link.country, currency: link.currency, redirect_url: redirectUrl };
  return { method: 'checkout-session', id: payment.checkout_session_id!, redirect_url: redirectUrl };
}

/**
 * Exactly one way to pay; a checkout session must hold a card the link may be paid with; a wallet
 * comes with its token and must be one the link offers (as its button is).
 */
async function checkPayment(ctx: RequestContext, link: PaymentLinkRow, payment: PagePayment): Promise<void> {
  if (Boolean(payment.method) === Boolean(payment.checkout_session_id)) {
    throw fieldRefusal(
      'body',
      '/checkout_session_id',
      "Send checkout_session_id (a card) or method (a redirect method, or applepay or googlepay with the wallet's token), one of them",
    );
  }
  const wallet = isWalletMethod(payment.method);
  if (wallet && !payment.token)
    throw fieldRefusal('body', '/token', `method ${payment.method} needs the wallet's payment token in token`);
  if (!wallet && (payment.token || payment.card_suffix))
    throw fieldRefusal('body', '/token', 'token and card_suffix go with method applepay or googlepay only');
  if (isWalletMethod(payment.method))
    await requireOfferedWallet(ctx, link, payment.method, { location: 'body', pointer: '/method' });
  else if (payment.method) await requireOfferedRedirect(ctx, link, payment.method);
  if (payment.checkout_session_id) await checkSessionCard(ctx, link, payment.checkout_session_id);
}

/** The transaction the link describes, paid as the page says. */
function transactionBody(link: PaymentLinkRow, payment: PagePayment, redirectUrl: string): CreateTransactionBody {
  const cardholderName = payment.cardholder_name ?? null;
  const guest: Record<string, unknown> | null = link.buyer
    ? { ...(link.buyer as Record<string, unknown>) }
    : cardholderName
      ? { display_name: cardholderName }
      : null;
  if (guest) delete guest.id;
  if (guest && link.shipping_details) {
    const { id: _id, buyer_id: _buyer, ...shipping } = link.shipping_details as Record<string, unknown>;
    guest.shipping_details = shipping;
  }
  return {
    amount: link.amount,
    currency: link.currency,
    country: link.country,
    intent: link.intent,
    payment_source: link.payment_source as CreateTransactionBody['payment_source'],
    store: link.store,
    external_identifier: link.external_identifier,
    metadata: link.metadata,
    cart_items: (link.cart_items as CreateTransactionBody['cart_items']) ?? null,
    statement_descriptor: (link.statement_descriptor as CreateTransactionBody['statement_descriptor']) ?? null,
    connection_options: link.connection_options,
    installment_count: link.installment_count,
    ...(link.buyer_id ? { buyer_id: link.buyer_id } : { buyer: guest as CreateTransactionBody['buyer'] }),
    payment_method: paymentMethodOf(link, payment, redirectUrl),
  };
}

export interface PagePaymentOutcome {
  outcome: 'paid' | 'declined' | 'pending';
  transaction_id: string;
  transaction_status: string;
  /** What the page tells the buyer, in the link's locale. */
  page_message: string;
  /** Where the page sends the buyer next: an approval page, the return URL, or the page itself. */
  next_url: string | null;
}

function outcomeOf(link: PaymentLinkRow, transaction: Transaction, pagePath: string): PagePaymentOutcome {
  const tr = translator(pageLocale(link.locale));
  const outcome = paymentOutcome(transaction.status);
  const base = { transaction_id: transaction.id, transaction_status: transaction.status };
  if (outcome === 'paid') {
    const next = link.return_url
      ? withTransactionResult(link.return_url, transaction.id, transaction.status)
      : pagePath;
    return { ...base, outcome: 'paid', page_message: tr.t('state_completed_title'), next_url: next };
  }
  if (outcome === 'unpaid') {
    return {
      ...base,
      outcome: 'declined',
      page_message: tr.t(declineMessage(transaction.error_code ?? null)),
      next_url: link.status === 'expired' ? pagePath : null,
    };
  }
  return {
    ...base,
    outcome: 'pending',
    page_message: tr.t('processing_notice'),
    next_url: transaction.payment_method?.approval_url ?? pagePath,
  };
}

/**
 * `POST /pay/{m}/{id}/payments`. `pagePath`: the page's path, where the buyer comes back to after an
 * approval page (`{pagePath}/return`) and where the page's states are shown.
 */
export async function payLink(
  ctx: RequestContext,
  id: string,
  body: PagePayment,
  ipAddress: string | null,
  pagePath: string,
): Promise<PagePaymentOutcome> {
  await checkPayment(ctx, await payableLink(ctx, id), body);
  const link = await claim(ctx, id);
  let transaction: Transaction;
  try {
    const redirectUrl = `${ctx.deps.config.publicUrl}${pagePath}/return`;
    transaction = await createTransaction(ctx, transactionBody(link, body, redirectUrl), ipAddress, {
      paymentLinkId: link.id,
    });
  } catch (error) {
    await reopenUnpaid(ctx.deps, ctx.merchantAccountId, id, requestAudit(ctx));
    throw error;
  }
  const settled = (await refreshLink(ctx.deps, ctx.merchantAccountId, id, requestAudit(ctx)))!;
  return outcomeOf(settled, transaction, pagePath);
}
