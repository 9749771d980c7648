import type { LightMyRequestResponse } from 'fastify';
import { generate } from 'otplib';
import { expect } from 'vitest';
import { createOrResetUser } from '../../src/modules/dashboard-users/dashboard-users.service.ts';
import { cookieName } from '../../src/modules/dashboard-sessions/session-cookie.ts';
import type { TestApp } from './build-test-app.ts';

export const PASSWORD = 'correct horse battery staple';

export interface DashboardUser {
  id: string;
  email: string;
  password: string;
}

/** A browser's session: its cookie token and CSRF token. */
export interface Browser {
  token: string;
  csrf: string;
}

let counter = 0;

/** Creates a user with `svc users create`'s service and sets its password through the set-up link (HTTP). */
export async function createDashboardUser(
  t: TestApp,
  roles: string[],
  merchantAccountId: string | null = null,
  email = `user${++counter}-${Date.now()}@example.com`,
): Promise<DashboardUser> {
  const link = await createOrResetUser(t.deps, { email, roles, merchantAccountId });
  const token = new URL(link.url).searchParams.get('token')!;
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/api/setup',
    payload: { token, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: link.userId, email, password: PASSWORD };
}

/** The session token a response sets, or null (cleared or none). */
export function setCookieToken(t: TestApp, res: LightMyRequestResponse): string | null {
  const header = res.headers['set-cookie'];
  const line = [header]
    .flat()
    .find((value): value is string => typeof value === 'string' && value.startsWith(`${cookieName(t.config)}=`));
  const value = line === undefined ? undefined : line.split(';')[0]!.slice(cookieName(t.config).length + 1);
  return value ? value : null;
}

export const cookie = (t: TestApp, token: string) => `${cookieName(t.config)}=${token}`;

export async function signIn(
  t: TestApp,
  user: Pick<DashboardUser, 'email' | 'password'>,
  options: { token?: string; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/api/session',
    payload: { email: user.email, password: user.password },
    ...(options.token ? { headers: { cookie: cookie(t, options.token) } } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** Signs in a user without a second factor; expects the `stage` given. */
export async function signedIn(t: TestApp, user: DashboardUser, stage = 'active'): Promise<Browser> {
  const res = await signIn(t, user);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().stage).toBe(stage);
  return { token: setCookieToken(t, res)!, csrf: res.json().csrf_token };
}

/** A request of the console: the cookie, the CSRF header (unless `csrf: null`), the merchant account header. */
export function fromBrowser(
  t: TestApp,
  browser: Browser,
  options: {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    url: string;
    payload?: unknown;
    csrf?: string | null;
    merchantAccountId?: string;
    app?: TestApp;
  },
) {
  const headers: Record<string, string> = { cookie: cookie(t, browser.token) };
  const csrf = options.csrf === undefined ? browser.csrf : options.csrf;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  if (options.merchantAccountId) headers['x-svc-merchant-account-id'] = options.merchantAccountId;
  return (options.app ?? t).app.inject({
    method: options.method,
    url: options.url,
    headers,
    ...(options.payload !== undefined ? { payload: options.payload as object } : {}),
  });
}

/** A TOTP code `stepsAhead` 30-second steps from now (a code is accepted once: the next sign-in uses the next step). */
export const totpCode = (secret: string, stepsAhead = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

/** Enrols TOTP for a signed-in browser (`enrollment` or `active`); returns the secret and the browser after it. */
export async function enrollTotp(
  t: TestApp,
  browser: Browser,
): Promise<{ secret: string; browser: Browser; responses: LightMyRequestResponse[] }> {
  const started = await fromBrowser(t, browser, { method: 'POST', url: '/dashboard/api/session/totp-enrollment' });
  expect(started.statusCode, started.body).toBe(200);
  const secret = started.json().secret as string;
  const confirmed = await fromBrowser(t, browser, {
    method: 'POST',
    url: '/dashboard/api/session/totp-enrollment/confirm',
    payload: { code: await totpCode(secret) },
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  expect(confirmed.json().stage).toBe('active');
  const token = setCookieToken(t, confirmed) ?? browser.token;
  return { secret, browser: { token, csrf: confirmed.json().csrf_token }, responses: [confirmed] };
}

/** An administrator, signed in with password and TOTP; the secret for later sign-ins. */
export async function signedInAdministrator(
  t: TestApp,
  merchantAccountId: string | null = null,
): Promise<{ user: DashboardUser; secret: string; browser: Browser }> {
  const user = await createDashboardUser(t, ['administrator'], merchantAccountId);
  const enrolled = await enrollTotp(t, await signedIn(t, user, 'enrollment'));
  return { user, secret: enrolled.secret, browser: enrolled.browser };
}
