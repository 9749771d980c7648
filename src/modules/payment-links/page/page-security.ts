import { randomBytes } from 'node:crypto';
import type { Config } from '../../../config.ts';
import type { Deps } from '../../../context.ts';
import { AppError, forbidden } from '../../../errors/app-error.ts';

/**
 * The hosted page's defences (docs/payment-links.md, "Security"): a strict Content-Security-Policy
 * (no inline script, no third-party script but Google's pay.js on production pages offering Google
 * Pay; the one inline style carries a per-response nonce),
 * no framing, no referrer (the link id in the URL is a secret), and a signed page token that every
 * call of the page's script must send back with a JSON body (CSRF).
 */

/** How long a page's token stays good: a buyer may leave the page open a while before paying. */
export const PAGE_TOKEN_TTL_MS = 2 * 3600 * 1000;

export const newNonce = () => randomBytes(16).toString('base64');

/**
 * Google Pay's web client: its script origin (https://pay.google.com/gp/p/js/pay.js), the frames it
 * opens, and what it connects to, including Chrome's payment handler for `https://google.com/pay`,
 * which falls under connect-src. Allowed only on production pages that offer Google Pay.
 */
const GOOGLE_PAY = {
  script: 'https://pay.google.com',
  frame: 'https://pay.google.com',
  connect: 'https://pay.google.com https://google.com/pay https://www.google.com/pay',
};

export function pageHeaders(
  config: Config,
  nonce: string,
  options: { googlePay?: boolean } = {},
): Record<string, string> {
  // Merchant banners and favicons come from the merchant's own hosts (https; http too in the sandbox).
  const images = config.environment === 'production' ? 'https:' : 'https: http:';
  const google = options.googlePay === true;
  const csp = [
    "default-src 'none'",
    `script-src 'self'${google ? ` ${GOOGLE_PAY.script}` : ''}`,
    `style-src 'self' 'nonce-${nonce}'`,
    `img-src 'self' ${images}`,
    `connect-src 'self'${google ? ` ${GOOGLE_PAY.connect}` : ''}`,
    ...(google ? [`frame-src ${GOOGLE_PAY.frame}`] : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

const TOKEN_LIST = 'payment-link-page';
const scopeOf = (merchantAccountId: string, linkId: string) => `${merchantAccountId}/${linkId}`;

/** A token bound to this link, signed with the instance's cursor secret (shared by every process). */
export function issuePageToken(deps: Deps, merchantAccountId: string, linkId: string, now = Date.now()): string {
  return deps.cursors.encode(TOKEN_LIST, scopeOf(merchantAccountId, linkId), {
    direction: 'next',
    key: [now, randomBytes(8).toString('hex')],
  });
}

const refused = () => forbidden('The payment page token is missing, invalid or expired: reload the payment page');

/** 403 unless the token was issued for this link less than PAGE_TOKEN_TTL_MS ago. */
export function checkPageToken(
  deps: Deps,
  merchantAccountId: string,
  linkId: string,
  token: unknown,
  now = Date.now(),
): void {
  if (typeof token !== 'string' || token.length > 200) throw refused();
  let issuedAt: unknown;
  try {
    issuedAt = deps.cursors.decode(TOKEN_LIST, scopeOf(merchantAccountId, linkId), token).key[0];
  } catch (error) {
    if (error instanceof AppError) throw refused();
    throw error;
  }
  if (typeof issuedAt !== 'number' || issuedAt > now || now - issuedAt > PAGE_TOKEN_TTL_MS) throw refused();
}

/** A browser names the page's origin; a call from another site's page is refused (CSRF, with the token). */
export function checkOrigin(config: Config, origin: string | undefined): void {
  if (origin !== undefined && origin !== new URL(config.publicUrl).origin)
    throw forbidden('Calls of the payment page must come from the payment page');
}
