import type { PaymentLinkRow } from '../../../db/schema-payment-links.ts';
import { escapeHtml } from './html.ts';
import type { MessageKey, Translator } from './i18n.ts';
import { walletButtons, walletSheet, type WalletView } from './page-wallets-render.ts';

/** What the hosted page shows: the form, or one of the states a link can be in. */
export type PageState = 'pay' | 'completed' | 'expired' | 'processing' | 'not_found' | 'error' | 'redirecting';

/** The columns of a link the page shows. */
export type PageLink = Pick<
  PaymentLinkRow,
  | 'amount'
  | 'currency'
  | 'cart_items'
  | 'merchant_name'
  | 'merchant_url'
  | 'merchant_banner_url'
  | 'merchant_color'
  | 'merchant_message'
  | 'merchant_terms_and_conditions_url'
  | 'merchant_favicon_url'
>;

export interface StoredCardChoice {
  id: string;
  scheme: string;
  last4: string;
  expiry: string;
}

/** A redirect method the link's payment services offer (a payment option of mode `redirect`). */
export interface RedirectChoice {
  method: string;
  label: string;
}

export interface PageView extends WalletView {
  state: PageState;
  tr: Translator;
  /** The nonce of the page's one inline <style> (the merchant's colour). */
  nonce: string;
  link: PageLink | null;
  /** The page's own path, `/pay/{merchant_account_id}/{payment_link_id}`. */
  base: string;
  /** The signed page token the script sends with every call (CSRF). */
  token: string;
  storedCards: StoredCardChoice[];
  redirectMethods: RedirectChoice[];
  /** A message above the form, e.g. why the last payment was declined. */
  notice: string | null;
  /** `redirecting`: where the buyer is sent (also in the Refresh header). */
  redirectTo: string | null;
}

const escape = escapeHtml;

/** WCAG relative luminance: white text on dark accents, near-black on light ones (contrast ≥ 4.5 either way for most colours). */
function onAccent(hex: string): string {
  const full = hex.length === 4 ? `#${hex[1]}${hex[1]}${hex[2]}${hex[2]}${hex[3]}${hex[3]}` : hex;
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(full.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return luminance > 0.179 ? '#111111' : '#ffffff';
}

function head(view: PageView, title: string): string {
  const color = view.link?.merchant_color;
  const style = color
    ? `<style nonce="${view.nonce}">:root{--accent:${color};--on-accent:${onAccent(color)}}</style>`
    : '';
  const icon = view.link?.merchant_favicon_url
    ? `<link rel="icon" href="${escape(view.link.merchant_favicon_url)}">`
    : '';
  return `<!doctype html>
<html lang="${view.tr.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title>${icon}
<link rel="stylesheet" href="/pay-assets/page.css">${style}</head>`;
}

const merchantOf = (view: PageView) => view.link?.merchant_name ?? view.tr.t('default_merchant');

function brand(view: PageView): string {
  const link = view.link;
  if (!link) return '';
  const banner = link.merchant_banner_url
    ? `<img class="banner" src="${escape(link.merchant_banner_url)}" alt="${escape(merchantOf(view))}">`
    : '';
  const name = link.merchant_name ? `<p><strong>${escape(link.merchant_name)}</strong></p>` : '';
  const message = link.merchant_message ? `<p class="message">${escape(link.merchant_message)}</p>` : '';
  return `<header>${banner}${name}${message}</header>`;
}

function cart(view: PageView): string {
  const items = (view.link?.cart_items ?? []) as Array<{ name: string; quantity: number; unit_amount: number }>;
  if (items.length === 0) return '';
  const rows = items
    .map(
      (item) =>
        `<li><span>${escape(item.name)}<span class="qty">${escape(view.tr.t('quantity', { quantity: item.quantity }))}</span></span><span>${escape(view.tr.money(item.unit_amount * item.quantity, view.link!.currency))}</span></li>`,
    )
    .join('');
  return `<h2>${escape(view.tr.t('cart'))}</h2><ul class="cart">${rows}</ul>`;
}

const input = (id: string, label: string, attrs: string) =>
  `<label for="${id}">${escape(label)}</label><input type="text" id="${id}" ${attrs}>`;

/**
 * A card input with the message of the page's checks next to it (page.js fills it and sets
 * aria-invalid): named by aria-describedby, and a live region so a screen reader reads it out.
 */
const cardInput = (id: string, label: string, attrs: string) =>
  `${input(id, label, `${attrs} aria-required="true" aria-describedby="${id}-error"`)}<p class="field-error" id="${id}-error" aria-live="polite"></p>`;

/** The messages of the card checks (assets/card-checks.js names them), as data-msg-* attributes of the form. */
const CHECK_MESSAGES = [
  ['number-required', 'check_number_required'],
  ['number-format', 'check_number_format'],
  ['number-invalid', 'check_number_invalid'],
  ['expiry-required', 'check_expiry_required'],
  ['expiry-format', 'check_expiry_format'],
  ['expiry-month', 'check_expiry_month'],
  ['expiry-past', 'check_expiry_past'],
  ['code-required', 'check_code_required'],
  ['code-invalid', 'check_code_invalid'],
] as const satisfies ReadonlyArray<readonly [string, MessageKey]>;

function storedChoices(view: PageView): string {
  if (view.storedCards.length === 0) return '';
  const { t } = view.tr;
  const choices = view.storedCards
    .map(
      (c, i) =>
        `<label class="choice"><input type="radio" name="stored_card" value="${escape(c.id)}"${i === 0 ? ' checked' : ''}> ${escape(t('stored_card', { scheme: c.scheme, last4: c.last4, expiry: c.expiry }))}</label>`,
    )
    .join('');
  return `<fieldset><legend>${escape(t('stored_cards'))}</legend>${choices}<label class="choice"><input type="radio" name="stored_card" value="new"> ${escape(t('new_card'))}</label></fieldset>`;
}

/**
 * Other ways to pay than a card: each a button the script turns into a payment with that method
 * (its approval page, then back). Wallets have their own block at the top (page-wallets-render.ts).
 */
function otherMethods(view: PageView): string {
  if (view.redirectMethods.length === 0) return '';
  const buttons = view.redirectMethods
    .map(
      (m) =>
        `<button type="button" class="alt" data-method="${escape(m.method)}">${escape(view.tr.t('pay_with', { method: m.label }))}</button>`,
    )
    .join('');
  return `<section aria-labelledby="other-methods"><h2 id="other-methods">${escape(view.tr.t('other_methods'))}</h2>${buttons}</section>`;
}

function payForm(view: PageView): string {
  const { t } = view.tr;
  const amount = view.tr.money(view.link!.amount, view.link!.currency);
  const data = [
    ['base', view.base],
    ['token', view.token],
    ['msg-processing', t('processing_notice')],
    ['msg-invalid-card', t('invalid_card')],
    ['msg-too-many', t('too_many_attempts')],
    ['msg-network', t('network_error')],
    ['msg-failed', t('payment_failed')],
    ['msg-not-payable', t('not_payable')],
    ['msg-wallet-failed', t('wallet_failed')],
    ...CHECK_MESSAGES.map(([name, key]) => [`msg-${name}`, t(key)]),
  ]
    .map(([k, v]) => `data-${k}="${escape(v!)}"`)
    .join(' ');
  return `<form id="pay-form" method="post" novalidate ${data}>${walletButtons(view)}${storedChoices(view)}
<fieldset><legend>${escape(t('card_details'))}</legend>
${cardInput('card-number', t('card_number'), 'inputmode="numeric" autocomplete="cc-number" maxlength="23" spellcheck="false"')}
<div class="row"><div>${cardInput('expiration-date', t('expiry'), `inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="${escape(t('expiry_placeholder'))}"`)}</div>
<div>${cardInput('security-code', t('security_code'), 'inputmode="numeric" autocomplete="cc-csc" maxlength="4"')}</div></div>
${input('cardholder-name', t('cardholder_name'), 'autocomplete="cc-name" maxlength="200"')}</fieldset>
<button type="submit">${escape(t('pay_button', { amount }))}</button>
${otherMethods(view)}
<p id="status" class="status${view.notice ? ' error' : ''}" role="status" aria-live="polite">${view.notice ? escape(view.notice) : ''}</p>
<p class="secured">${escape(t('secured'))}</p></form>${walletSheet(view)}
<noscript><p class="status error">${escape(t('state_error_text'))}</p></noscript><script src="/pay-assets/card-checks.js" defer></script><script src="/pay-assets/page.js" defer></script>`;
}

const STATE_TEXT: Record<
  Exclude<PageState, 'pay' | 'redirecting'>,
  [
    (
      | 'state_completed_title'
      | 'state_expired_title'
      | 'state_processing_title'
      | 'state_not_found_title'
      | 'state_error_title'
    ),
    (
      | 'state_completed_text'
      | 'state_expired_text'
      | 'state_processing_text'
      | 'state_not_found_text'
      | 'state_error_text'
    ),
  ]
> = {
  completed: ['state_completed_title', 'state_completed_text'],
  expired: ['state_expired_title', 'state_expired_text'],
  processing: ['state_processing_title', 'state_processing_text'],
  not_found: ['state_not_found_title', 'state_not_found_text'],
  error: ['state_error_title', 'state_error_text'],
};

function stateBody(view: PageView): string {
  const { t } = view.tr;
  if (view.state === 'redirecting') {
    const to = escape(view.redirectTo ?? '');
    return `<section class="state completed"><h1>${escape(t('state_completed_title'))}</h1><p role="status">${escape(t('redirecting', { merchant: merchantOf(view) }))}</p><p><a href="${to}">${escape(t('continue'))}</a></p></section>`;
  }
  const [title, text] = STATE_TEXT[view.state as keyof typeof STATE_TEXT];
  return `<section class="state ${view.state}"><h1>${escape(t(title))}</h1><p>${escape(t(text, { merchant: merchantOf(view) }))}</p></section>`;
}

function footer(view: PageView): string {
  const link = view.link;
  const terms = link?.merchant_terms_and_conditions_url
    ? `<a href="${escape(link.merchant_terms_and_conditions_url)}" rel="noreferrer">${escape(view.tr.t('terms'))}</a>`
    : '';
  const site = link?.merchant_url
    ? `<a href="${escape(link.merchant_url)}" rel="noreferrer">${escape(view.tr.t('visit_merchant', { merchant: merchantOf(view) }))}</a>`
    : '';
  return terms || site ? `<footer>${[terms, site].filter(Boolean).join(' · ')}</footer>` : '';
}

/** The whole page. Every value from the link is escaped; the only scripts are /pay-assets/card-checks.js and page.js. */
export function renderPage(view: PageView): string {
  const { t } = view.tr;
  const title = t('page_title', { merchant: merchantOf(view) });
  const summary =
    view.link && view.state === 'pay'
      ? `<h1>${escape(title)}</h1><p class="visually-hidden">${escape(t('amount_due'))}</p><p class="amount">${escape(view.tr.money(view.link.amount, view.link.currency))}</p>${cart(view)}`
      : '';
  const body = view.state === 'pay' ? `${summary}${payForm(view)}` : stateBody(view);
  return `${head(view, title)}<body><main>${brand(view)}${body}${footer(view)}</main></body></html>`;
}
