import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  createDashboardUser,
  fromBrowser,
  PASSWORD,
  setCookieToken,
  signedInAdministrator,
  totpCode,
} from '../../../../test/helpers/dashboard.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import {
  startIdentityProvider,
  type TestAccount,
  type TestIdentityProvider,
} from '../../../../test/helpers/oidc-provider.ts';

/**
 * Single sign-on through a real OpenID Connect provider (oidc-provider on this machine): the
 * browser's part is played by this test, following the redirects and keeping each side's cookies.
 */

const PUBLIC_URL = 'http://svc.test';
let idp: TestIdentityProvider;
let t: TestApp;
let counter = 0;

beforeAll(async () => {
  idp = await startIdentityProvider(`${PUBLIC_URL}/dashboard/api/sso/callback`);
  t = await buildTestApp({
    PUBLIC_URL,
    DASHBOARD_OIDC_ISSUER: idp.issuer,
    DASHBOARD_OIDC_CLIENT_ID: idp.clientId,
    DASHBOARD_OIDC_CLIENT_SECRET: idp.clientSecret,
    DASHBOARD_OIDC_NAME: 'Acme ID',
  });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

const setCookies = (res: { headers: Record<string, unknown> }): string[] =>
  [res.headers['set-cookie']].flat().filter((v): v is string => typeof v === 'string');
const pair = (line: string) => line.split(';')[0]!;

/** The provider's side of the browser: follows its redirects with its cookies until it sends the browser back to us. */
async function throughProvider(location: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = location;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(PUBLIC_URL)) return new URL(url);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const [name, value] = pair(line).split('=') as [string, string];
      jar.set(name, value);
    }
    const next = res.headers.get('location');
    if (!next) throw new Error(`the provider stopped at ${url} with ${res.status}: ${await res.text()}`);
    url = new URL(next, url).href;
  }
  throw new Error('too many redirects at the provider');
}

interface SsoOutcome {
  callback: LightMyRequestResponse;
  session: string | null;
}

/** Clicks the button, signs in at the provider as `account`, comes back. */
async function singleSignOn(
  account: TestAccount | null,
  options: { tamper?: (url: URL) => void; cookie?: string } = {},
): Promise<SsoOutcome> {
  const start = await t.app.inject({ method: 'GET', url: '/dashboard/api/sso/start?return_to=/transactions' });
  expect(start.statusCode, start.body).toBe(303);
  const stateCookie = pair(setCookies(start).find((c) => c.startsWith('svc_sso='))!);
  if (account) idp.signInAs(account);
  else idp.denyNext();
  const back = await throughProvider(start.headers.location as string);
  options.tamper?.(back);
  const callback = await t.app.inject({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: options.cookie ?? stateCookie },
  });
  return { callback, session: setCookieToken(t, callback) };
}

const email = () => `sso${++counter}-${Date.now()}@example.com`;
const sessionOf = (token: string) =>
  t.app.inject({ method: 'GET', url: '/dashboard/api/session', headers: { cookie: `svc_session=${token}` } });

describe('single sign-on', () => {
  it('tells the sign-in page it is on, and its name', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/api/sso' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ enabled: true, name: 'Acme ID', start_url: '/dashboard/api/sso/start' });
  });

  it('sends the browser to the provider with PKCE, state and nonce, and the state in a Lax cookie of this browser', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/dashboard/api/sso/start' });
    expect(start.statusCode).toBe(303);
    const to = new URL(start.headers.location as string);
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: idp.clientId,
      redirect_uri: `${PUBLIC_URL}/dashboard/api/sso/callback`,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(to.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = setCookies(start).find((c) => c.startsWith('svc_sso='))!;
    expect(cookie).toContain(`svc_sso=${to.searchParams.get('state')}`);
    expect(cookie).toMatch(/HttpOnly; SameSite=Lax; Max-Age=600/);
  });

  it('creates a user at its first sign-in with the roles the provider names, signed in where it asked to go', async () => {
    const account = await createMerchantAccount(t.deps);
    const address = email();
    const { callback, session } = await singleSignOn({
      sub: `sub-${counter}`,
      email: address,
      email_verified: true,
      name: 'Grace Hopper',
      svc_roles: [`${account}:customer-support`, 'unknown-account:analyst'],
    });
    expect(callback.statusCode, callback.body).toBe(303);
    expect(callback.headers.location).toBe('/dashboard/transactions');
    const cookies = setCookies(callback);
    expect(cookies.find((c) => c.startsWith('svc_session='))).toMatch(/HttpOnly; SameSite=Strict/);
    expect(cookies.find((c) => c.startsWith('svc_sso='))).toMatch(/Max-Age=0/);
    const me = (await sessionOf(session!)).json();
    expect(me.stage).toBe('active');
    expect(me.user).toMatchObject({ email: address, display_name: 'Grace Hopper' });
    expect(
      me.user.memberships.map((m: { merchant_account_id: string | null; roles: string[] }) => [
        m.merchant_account_id,
        m.roles,
      ]),
    ).toEqual([[account, ['customer-support']]]);
    // The session is a principal of the API like a password sign-in's.
    const listed = await fromBrowser(
      t,
      { token: session!, csrf: me.csrf_token },
      { method: 'GET', url: '/transactions', merchantAccountId: account },
    );
    expect(listed.statusCode, listed.body).toBe(200);
    const audit = (
      await t.request({ method: 'GET', url: `/audit-logs?user_id=${me.user.id}`, merchantAccountId: account })
    ).json().items;
    expect(audit.map((e: { resource: { name: string } }) => e.resource.name)).toContain('sign-in with single sign-on');
  });

  it('finds an existing user by e-mail address the first time, then by its identity; the roles claim replaces its roles', async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['analyst'], account);
    const sub = `sub-existing-${counter}`;
    const first = await singleSignOn({
      sub,
      email: user.email.toUpperCase(),
      email_verified: true,
      svc_roles: [`${account}:system-support`],
    });
    expect(first.callback.statusCode).toBe(303);
    const me = (await sessionOf(first.session!)).json();
    expect(me.user.id).toBe(user.id);
    expect(me.user.memberships[0].roles).toEqual(['system-support']);
    // The provider changed the address: the identity still finds the user.
    const second = await singleSignOn({ sub, email: `renamed-${user.email}`, email_verified: true });
    expect((await sessionOf(second.session!)).json().user.id).toBe(user.id);
    // No roles claim: the roles stay as they were.
    expect((await sessionOf(second.session!)).json().user.memberships[0].roles).toEqual(['system-support']);
    // Another identity of the provider with this user's address is refused.
    const other = await singleSignOn({ sub: `intruder-${counter}`, email: user.email, email_verified: true });
    expect(other.callback.headers.location).toBe('/dashboard/?sso_error=identity_mismatch');
    expect(other.session).toBeNull();
    // The password still works beside single sign-on.
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/dashboard/api/session',
          payload: { email: user.email, password: PASSWORD },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('asks an administrator its own second factor when the provider did not do one, and not when it did', async () => {
    const without = await singleSignOn({
      sub: `admin-a-${counter}`,
      email: email(),
      email_verified: true,
      svc_roles: ['administrator'],
      amr: ['pwd'],
    });
    expect((await sessionOf(without.session!)).json().stage).toBe('enrollment');
    const withMfa = await singleSignOn({
      sub: `admin-b-${counter}`,
      email: email(),
      email_verified: true,
      svc_roles: ['administrator'],
      amr: ['pwd', 'otp'],
    });
    expect((await sessionOf(withMfa.session!)).json().stage).toBe('active');
    // An administrator with an authenticator app confirms a code of it, as after a password.
    const admin = await signedInAdministrator(t);
    const withTotp = await singleSignOn({
      sub: `admin-c-${counter}`,
      email: admin.user.email,
      email_verified: true,
      amr: ['pwd'],
    });
    expect((await sessionOf(withTotp.session!)).json().stage).toBe('second-factor');
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/session/totp',
      headers: { cookie: `svc_session=${withTotp.session}` },
      payload: { code: await totpCode(admin.secret, 1) },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json().stage).toBe('active');
  });

  it('revokes a session the browser held before: the signed-in one is new (no fixation)', async () => {
    const address = email();
    const first = await singleSignOn({ sub: `fix-${counter}`, email: address, email_verified: true });
    const again = await singleSignOn({ sub: `fix-${counter}`, email: address }, {});
    expect(again.session).not.toBe(first.session);
    const planted = await t.app.inject({ method: 'GET', url: '/dashboard/api/sso/start' });
    const state = pair(setCookies(planted).find((c) => c.startsWith('svc_sso='))!);
    idp.signInAs({ sub: `fix-${counter}`, email: address });
    const back = await throughProvider(planted.headers.location as string);
    const callback = await t.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      headers: { cookie: `${state}; svc_session=${first.session}` },
    });
    expect(callback.statusCode).toBe(303);
    expect(setCookieToken(t, callback)).not.toBe(first.session);
    expect((await sessionOf(first.session!)).statusCode).toBe(401);
  });

  it("refuses a return without this browser's state cookie, a state used twice, and a code changed on the way (login CSRF, replay)", async () => {
    const address = email();
    const stranger = await singleSignOn(
      { sub: `csrf-${counter}`, email: address, email_verified: true },
      { cookie: 'svc_sso=someone-elses-state-value' },
    );
    expect(stranger.callback.headers.location).toBe('/dashboard/?sso_error=expired');
    expect(stranger.session).toBeNull();
    // The same return twice: the first signs in, the second finds no sign-in waiting.
    const start = await t.app.inject({ method: 'GET', url: '/dashboard/api/sso/start' });
    const state = pair(setCookies(start).find((c) => c.startsWith('svc_sso='))!);
    idp.signInAs({ sub: `replay-${counter}`, email: address, email_verified: true });
    const back = await throughProvider(start.headers.location as string);
    const once = await t.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      headers: { cookie: state },
    });
    expect(setCookieToken(t, once)).not.toBeNull();
    const twice = await t.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      headers: { cookie: state },
    });
    expect(twice.headers.location).toBe('/dashboard/?sso_error=expired');
    const forged = await singleSignOn(
      { sub: `forged-${counter}`, email: email(), email_verified: true },
      { tamper: (url) => url.searchParams.set('code', 'not-the-code') },
    );
    expect(forged.callback.headers.location).toBe('/dashboard/?sso_error=provider');
    expect(forged.session).toBeNull();
  });

  it('refuses a denied sign-in, an unverified address, a disabled user and a roles claim that is not roles, creating no one', async () => {
    const denied = await singleSignOn(null);
    expect(denied.callback.headers.location).toBe('/dashboard/?sso_error=provider');
    const unverifiedAddress = email();
    const unverified = await singleSignOn({ sub: `unv-${counter}`, email: unverifiedAddress, email_verified: false });
    expect(unverified.callback.headers.location).toBe('/dashboard/?sso_error=unverified_email');
    const badRoles = await singleSignOn({
      sub: `bad-${counter}`,
      email: email(),
      email_verified: true,
      svc_roles: ['owner'],
    });
    expect(badRoles.callback.headers.location).toBe('/dashboard/?sso_error=roles');
    const created = await t.deps.db
      .selectFrom('dashboard_users')
      .select('email')
      .where('email', 'in', [unverifiedAddress])
      .execute();
    expect(created).toEqual([]);
    const user = await createDashboardUser(t, ['analyst']);
    await t.deps.db.updateTable('dashboard_users').set({ status: 'disabled' }).where('id', '=', user.id).execute();
    const disabled = await singleSignOn({ sub: `dis-${counter}`, email: user.email, email_verified: true });
    expect(disabled.callback.headers.location).toBe('/dashboard/?sso_error=disabled');
    expect(disabled.session).toBeNull();
  });
});

describe('without single sign-on', () => {
  it('says it is off, and its addresses answer 404', async () => {
    const plain = await buildTestApp();
    try {
      expect((await plain.app.inject({ method: 'GET', url: '/dashboard/api/sso' })).json()).toEqual({
        enabled: false,
        name: null,
        start_url: null,
      });
      expect((await plain.app.inject({ method: 'GET', url: '/dashboard/api/sso/start' })).statusCode).toBe(404);
      expect((await plain.app.inject({ method: 'GET', url: '/dashboard/api/sso/callback?state=x' })).statusCode).toBe(
        404,
      );
    } finally {
      await plain.close();
    }
  });
});
