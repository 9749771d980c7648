import type { Config } from '../../config.ts';

/**
 * The state of a single sign-on in progress, held by the browser that started it: the return from
 * the provider must come with it (a return started in another browser, a login CSRF, is refused).
 * SameSite=Lax, not Strict: the return is a navigation from the provider's site, which a Strict
 * cookie would not come with. HttpOnly, `__Host-` and Secure in production, 10 minutes.
 */
export function stateCookieName(config: Pick<Config, 'environment'>): string {
  return config.environment === 'production' ? '__Host-svc_sso' : 'svc_sso';
}

export function stateCookie(config: Pick<Config, 'environment'>, state: string, maxAgeSeconds: number): string {
  const secure = config.environment === 'production' ? '; Secure' : '';
  return `${stateCookieName(config)}=${state}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export function clearedStateCookie(config: Pick<Config, 'environment'>): string {
  const secure = config.environment === 'production' ? '; Secure' : '';
  return `${stateCookieName(config)}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}

const STATE = /^[A-Za-z0-9_-]{16,128}$/;

/** The state of the Cookie header, or null. Split by hand (no pattern over the whole header). */
export function readStateCookie(header: string | undefined, config: Pick<Config, 'environment'>): string | null {
  if (!header) return null;
  const name = stateCookieName(config);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return STATE.test(value) ? value : null;
  }
  return null;
}
