import { escapeHtml } from './html.ts';
import type { Translator } from './i18n.ts';
import { cardsFor, SANDBOX_WALLET_CARDS, type WalletCardOutcome } from './sandbox-wallet-cards.ts';
import type { ApplePayRequest } from './wallet-requests.ts';

/**
 * The page's Apple Pay and Google Pay buttons, and in the sandbox the simulated wallet sheet they
 * open (a native modal <dialog>: focus moves into it, Escape closes it, the page behind is inert).
 * page.js drives both; no inline script.
 */

/** A wallet button: a payment option of the link that this environment can run. */
export interface WalletButton {
  method: 'applepay' | 'googlepay';
  label: string;
  /** Apple Pay JS's payment request (production Apple Pay). */
  appleRequest: ApplePayRequest | null;
}

export interface WalletView {
  tr: Translator;
  wallets: WalletButton[];
  /** sandbox: the simulated sheet; production: the browsers' own wallets. */
  walletMode: 'sandbox' | 'production';
}

const escape = escapeHtml;

/**
 * The buttons, at the top of the form (express checkout). In production they stay hidden until the
 * script knows the browser can pay with the wallet (ApplePaySession.canMakePayments, isReadyToPay).
 */
export function walletButtons(view: WalletView): string {
  if (view.wallets.length === 0) return '';
  const { t } = view.tr;
  const hidden = view.walletMode === 'production' ? ' hidden' : '';
  const buttons = view.wallets
    .map((w) => {
      const request = w.appleRequest ? ` data-request="${escape(JSON.stringify(w.appleRequest))}"` : '';
      return `<button type="button" class="wallet wallet-${w.method}" data-wallet="${w.method}"${request}${hidden}>${escape(t('pay_with', { method: w.label }))}</button>`;
    })
    .join('');
  return `<section class="wallets" aria-labelledby="wallets-title" data-wallet-mode="${view.walletMode}"><h2 id="wallets-title">${escape(t('wallets_title'))}</h2>${buttons}</section>`;
}

const OUTCOME_KEYS: Record<
  WalletCardOutcome,
  'wallet_outcome_approved' | 'wallet_outcome_declined' | 'wallet_outcome_insufficient_funds' | 'wallet_outcome_failed'
> = {
  approved: 'wallet_outcome_approved',
  declined: 'wallet_outcome_declined',
  insufficient_funds: 'wallet_outcome_insufficient_funds',
  failed: 'wallet_outcome_failed',
};

/**
 * The sandbox's simulated wallet sheet: the sandbox test cards, each a button named "<card>, <outcome>"
 * (its visible text, with a pause between the two for screen readers); the script makes its token.
 */
export function walletSheet(view: WalletView): string {
  if (view.walletMode !== 'sandbox' || view.wallets.length === 0) return '';
  const { t } = view.tr;
  const appleOnly = new Set(cardsFor('applepay').map((c) => c.id));
  const cards = SANDBOX_WALLET_CARDS.map((card) => {
    const only = appleOnly.has(card.id) ? '' : ' data-only="googlepay"';
    const outcome = card.panOnly
      ? `${t(OUTCOME_KEYS[card.outcome])} · ${t('wallet_card_pan_only')}`
      : t(OUTCOME_KEYS[card.outcome]);
    const name = t('wallet_card', { scheme: card.scheme, last4: card.number.slice(-4) });
    return `<li${only}><button type="button" class="sheet-card" data-card="${card.id}" aria-label="${escape(`${name}, ${outcome}`)}"><span>${escape(name)}</span><span class="outcome">${escape(outcome)}</span></button></li>`;
  }).join('');
  const titles = view.wallets
    .map((w) => `data-title-${w.method}="${escape(t('wallet_sheet_title', { wallet: w.label }))}"`)
    .join(' ');
  return `<dialog id="wallet-sheet" class="sheet" aria-labelledby="wallet-sheet-title" aria-describedby="wallet-sheet-text" ${titles}>
<h2 id="wallet-sheet-title"></h2><p id="wallet-sheet-text">${escape(t('wallet_sheet_text'))}</p>
<ul class="sheet-cards">${cards}</ul><button type="button" class="alt" data-sheet-cancel>${escape(t('wallet_sheet_cancel'))}</button></dialog>`;
}
