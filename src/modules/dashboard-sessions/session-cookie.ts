import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';

/** The header every state-changing request authorized by the session cookie carries (CSRF). */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * `__Host-` in production: the browser then only accepts the cookie from this very origin over
 * HTTPS, with Path=/ and no Domain, so a sibling subdomain cannot plant a session cookie. Plain
 * http sandboxes on localhost cannot use the prefix (it requires Secure).
 */
export function cookieName(config: Pick<Config, 'environment'>): string {
  return config.environment === 'production' ? '__Host-svc_session' : 'svc_session';
}

/** 32 random bytes, base64url: the cookie value (and the set-up link token). */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** What the database keeps of a token: its SHA-256, so a copy of the table opens no session. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The session token of a Cookie header, or null. Split by hand (no pattern over the whole header). */
export function readSessionCookie(header: string | undefined, config: Pick<Config, 'environment'>): string | null {
  if (!header) return null;
  const name = cookieName(config);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return TOKEN.test(value) ? value : null;
  }
  return null;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it), Secure in production. */
export function sessionCookie(config: Pick<Config, 'environment'>, token: string, maxAgeSeconds: number): string {
  const secure = config.environment === 'production' ? '; Secure' : '';
  return `${cookieName(config)}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function clearedSessionCookie(config: Pick<Config, 'environment'>): string {
  const secure = config.environment === 'production' ? '; Secure' : '';
  return `${cookieName(config)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`;
}

/** Compares the CSRF header with the session's token in constant time. */
export function csrfMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Methods that change nothing: the cookie alone authorizes them; every other one needs the CSRF header. */
export const isSafeMethod = (method: string): boolean => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
