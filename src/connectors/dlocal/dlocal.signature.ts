import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * dLocal's request signature, V2-HMAC-SHA256 (docs.dlocal.com/reference/payins-security): the hex
 * HMAC-SHA256, with the account's secret key, of `X-Login + X-Date + body` (the body exactly as
 * sent; empty for a GET). Requests carry it as `Authorization: V2-HMAC-SHA256, Signature: <hex>`;
 * dLocal signs its notifications the same way, with the same key.
 */
export function dlocalSignature(secretKey: string, login: string, date: string, body: string): string {
  return createHmac('sha256', secretKey).update(`${login}${date}${body}`, 'utf8').digest('hex');
}

export const authorizationHeader = (signature: string) => `V2-HMAC-SHA256, Signature: ${signature}`;

/** The hex signature of an `Authorization` header, or null when it is not dLocal's V2 scheme. */
export function signatureOf(header: string | undefined): string | null {
  const [scheme, signature] = (header ?? '').split(',', 2).map((part) => part.trim());
  if (scheme !== 'V2-HMAC-SHA256' || !signature?.startsWith('Signature:')) return null;
  const hex = signature.slice('Signature:'.length).trim().toLowerCase();
  return hex.length === 64 && [...hex].every((c) => HEX.includes(c)) ? hex : null;
}

const HEX = '0123456789abcdef';

/** Constant-time comparison of two hex signatures. */
export function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
