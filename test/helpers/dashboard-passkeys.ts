import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';
import { cookie, fromBrowser, setCookieToken, signIn, type Browser, type DashboardUser } from './dashboard.ts';
import { SoftAuthenticator, type Bend } from './software-authenticator.ts';

/** The origin of an injected request (Host `localhost:80`): what a browser on that host would sign. */
export const INJECT_ORIGIN = 'http://localhost';

export const newAuthenticator = () => new SoftAuthenticator(INJECT_ORIGIN);

/** Registers a passkey for a signed-in browser (`enrollment` or `active`); returns the answer and the browser after it. */
export async function registerPasskey(
  t: TestApp,
  browser: Browser,
  authenticator: SoftAuthenticator,
  options: { bend?: Bend; name?: string } = {},
): Promise<{ res: LightMyRequestResponse; browser: Browser }> {
  const started = await fromBrowser(t, browser, { method: 'POST', url: '/dashboard/api/session/passkey-registration' });
  expect(started.statusCode, started.body).toBe(200);
  const answer = authenticator.register(started.json().public_key, options.bend);
  const res = await fromBrowser(t, browser, {
    method: 'POST',
    url: '/dashboard/api/session/passkey-registration/confirm',
    payload: { ...answer, ...(options.name ? { name: options.name } : {}) },
  });
  const token = res.statusCode === 200 ? (setCookieToken(t, res) ?? browser.token) : browser.token;
  return { res, browser: res.statusCode === 200 ? { token, csrf: res.json().csrf_token } : browser };
}

/** The sign-in options of a session waiting for its second factor. */
export async function passkeyChallenge(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/api/session/passkey-challenge',
    headers: { cookie: cookie(t, token) },
  });
}

export async function sendAssertion(
  t: TestApp,
  token: string,
  answer: unknown,
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/api/session/passkey',
    headers: { cookie: cookie(t, token) },
    payload: answer as object,
    remoteAddress,
  });
}

/** Password, then a passkey answer to fresh options (bent as asked); returns the last answer and the waiting token. */
export async function signInWithPasskey(
  t: TestApp,
  user: DashboardUser,
  authenticator: SoftAuthenticator,
  bend: Bend = {},
  remoteAddress = '127.0.0.1',
): Promise<{ res: LightMyRequestResponse; waiting: string }> {
  const first = await signIn(t, user, { remoteAddress });
  expect(first.statusCode, first.body).toBe(200);
  expect(first.json().stage).toBe('second-factor');
  const waiting = setCookieToken(t, first)!;
  const options = await passkeyChallenge(t, waiting);
  expect(options.statusCode, options.body).toBe(200);
  const answer = authenticator.assert(options.json().public_key, bend);
  return { res: await sendAssertion(t, waiting, answer, remoteAddress), waiting };
}
