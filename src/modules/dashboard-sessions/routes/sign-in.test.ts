import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  createDashboardUser,
  enrollTotp,
  fromBrowser,
  PASSWORD,
  setCookieToken,
  signedIn,
  signedInAdministrator,
  signIn,
  totpCode,
} from '../../../../test/helpers/dashboard.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { buildProductionApp } from '../../../../test/helpers/production.ts';
import { createOrResetUser } from '../../dashboard-users/dashboard-users.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const auditOf = async (merchantAccountId: string, userId: string) =>
  (await t.request({ method: 'GET', url: `/audit-logs?user_id=${userId}&limit=100`, merchantAccountId })).json()
    .items as Array<{
    action: string;
    resource: { type: string; name: string };
    user: { id: string; name: string; email_address: string | null };
  }>;

describe('happy', () => {
  it('signs an analyst in with e-mail and password: an HttpOnly, SameSite=Strict cookie, the user, its roles and scopes', async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['analyst', 'pii-viewer'], account);
    const res = await signIn(t, { email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    // The cookie ends with the session's absolute timeout (12 hours by default).
    expect(Number(setCookie.split('Max-Age=')[1])).toBeGreaterThan(43_190);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({
      type: 'dashboard-session',
      stage: 'active',
      user: { id: user.id, email: user.email, status: 'active', totp_enrolled: false, second_factor_required: false },
    });
    expect(body.user.memberships).toEqual([
      {
        merchant_account_id: account,
        roles: ['analyst', 'pii-viewer'],
        scopes: expect.arrayContaining(['transactions.read', 'buyers.billing-details.read']),
      },
    ]);
    const me = await fromBrowser(
      t,
      { token: setCookieToken(t, res)!, csrf: body.csrf_token },
      { method: 'GET', url: '/dashboard/api/session' },
    );
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual(body);
  });

  it("makes the console a client of the API: the user's cookie reads transactions of its account as a token with its role's scopes would", async () => {
    const account = await createMerchantAccount(t.deps);
    const browser = await signedIn(t, await createDashboardUser(t, ['analyst'], account));
    const res = await fromBrowser(t, browser, { method: 'GET', url: '/transactions' });
    expect(res.statusCode, res.body).toBe(200);
    expect(
      (await fromBrowser(t, browser, { method: 'GET', url: '/transactions', merchantAccountId: account })).statusCode,
    ).toBe(200);
  });

  it('has an administrator enrol TOTP at its first sign-in, then asks for a code at every sign-in, under a new session id each step', async () => {
    const user = await createDashboardUser(t, ['administrator']);
    const first = await signedIn(t, user, 'enrollment');
    const refused = await fromBrowser(t, first, { method: 'GET', url: '/merchant-accounts' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/second factor/);
    const { secret, browser } = await enrollTotp(t, first);
    expect(browser.token).not.toBe(first.token);
    expect((await fromBrowser(t, first, { method: 'GET', url: '/dashboard/api/session' })).statusCode).toBe(401);
    expect((await fromBrowser(t, browser, { method: 'GET', url: '/merchant-accounts' })).statusCode).toBe(200);

    const step = await signIn(t, user);
    expect(step.json()).toMatchObject({ stage: 'second-factor', user: null });
    const waiting = setCookieToken(t, step)!;
    const waitingBrowser = { token: waiting, csrf: step.json().csrf_token };
    expect((await fromBrowser(t, waitingBrowser, { method: 'GET', url: '/merchant-accounts' })).statusCode).toBe(401);
    const wrong = await fromBrowser(t, waitingBrowser, {
      method: 'POST',
      url: '/dashboard/api/session/totp',
      payload: { code: '000000' },
    });
    expect(wrong.statusCode).toBe(401);
    const done = await fromBrowser(t, waitingBrowser, {
      method: 'POST',
      url: '/dashboard/api/session/totp',
      payload: { code: await totpCode(secret, 1) },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      stage: 'active',
      user: { id: user.id, totp_enrolled: true, second_factor_required: true },
    });
    const signedInToken = setCookieToken(t, done)!;
    expect(signedInToken).not.toBe(waiting);
    expect(
      (await fromBrowser(t, { token: waiting, csrf: '' }, { method: 'GET', url: '/dashboard/api/session' })).statusCode,
    ).toBe(401);
  });

  it('signs out this session, or every session of the user', async () => {
    const user = await createDashboardUser(t, ['customer-support']);
    const [a, b, c] = [await signedIn(t, user), await signedIn(t, user), await signedIn(t, user)];
    const out = await fromBrowser(t, a, { method: 'DELETE', url: '/dashboard/api/session' });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^svc_session=; .*Max-Age=0/);
    expect((await fromBrowser(t, a, { method: 'GET', url: '/transactions' })).statusCode).toBe(401);
    expect((await fromBrowser(t, b, { method: 'GET', url: '/transactions' })).statusCode).toBe(200);
    expect(
      (await fromBrowser(t, b, { method: 'POST', url: '/dashboard/api/session/sign-out-everywhere' })).statusCode,
    ).toBe(204);
    for (const browser of [b, c])
      expect((await fromBrowser(t, browser, { method: 'GET', url: '/transactions' })).statusCode).toBe(401);
  });

  it('writes sign-ins, failed sign-ins, sign-outs and what the user does through the API in the audit log, the user as actor', async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['customer-support'], account);
    expect((await signIn(t, { email: user.email, password: 'not the password' })).statusCode).toBe(401);
    const browser = await signedIn(t, user);
    const buyer = await fromBrowser(t, browser, {
      method: 'POST',
      url: '/buyers',
      payload: { display_name: 'Ada' },
      merchantAccountId: account,
    });
    expect(buyer.statusCode, buyer.body).toBe(201);
    expect((await fromBrowser(t, browser, { method: 'DELETE', url: '/dashboard/api/session' })).statusCode).toBe(204);
    const entries = await auditOf(account, user.id);
    const actor = { id: user.id, name: user.email.split('@')[0], email_address: user.email };
    expect(entries.map((e) => [e.action, e.resource.type, e.resource.name])).toEqual([
      ['deleted', 'dashboard-session', 'sign-out'],
      ['created', 'buyer', 'Ada'],
      ['created', 'dashboard-session', 'sign-in'],
      ['canceled', 'dashboard-sign-in', 'failed sign-in: wrong password'],
      ['updated', 'dashboard-user', 'password set'],
    ]);
    for (const entry of entries) expect(entry.user).toMatchObject(actor);
  });

  it('resets a password with a new set-up link: the old link stops working, the new password signs in, sessions end', async () => {
    const user = await createDashboardUser(t, ['analyst']);
    const before = await signedIn(t, user);
    const first = await createOrResetUser(t.deps, { email: user.email, roles: ['analyst'], merchantAccountId: null });
    const second = await createOrResetUser(t.deps, { email: user.email, roles: ['analyst'], merchantAccountId: null });
    expect(second).toMatchObject({ userId: user.id, created: false });
    expect(second.url).toMatch(new RegExp(`^${t.config.publicUrl}/dashboard/setup\\?token=[A-Za-z0-9_-]{43}$`));
    const setup = (url: string, password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/dashboard/api/setup',
        payload: { token: new URL(url).searchParams.get('token'), password },
      });
    expect((await setup(first.url, 'another long password')).statusCode).toBe(404);
    const done = await setup(second.url, 'another long password');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({
      type: 'dashboard-setup',
      email: user.email,
      second_factor_required: false,
      totp_enrolled: false,
    });
    expect((await fromBrowser(t, before, { method: 'GET', url: '/dashboard/api/session' })).statusCode).toBe(401);
    expect((await signIn(t, user)).statusCode).toBe(401);
    expect((await signIn(t, { email: user.email, password: 'another long password' })).statusCode).toBe(200);
    expect((await setup(second.url, 'yet another password')).statusCode).toBe(404);
  });
});

describe('errors', () => {
  it('refuses a password shorter than 12 characters or made of the e-mail address, and keeps the link usable', async () => {
    const link = await createOrResetUser(t.deps, {
      email: 'grace.hopper@example.com',
      roles: ['analyst'],
      merchantAccountId: null,
    });
    const token = new URL(link.url).searchParams.get('token');
    for (const [password, message] of [
      ['short pass', /at least 12/],
      ['GRACE.HOPPER@example.com!', /e-mail address/],
      ['my grace.hopper 2026', /e-mail address/],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/dashboard/api/setup', payload: { token, password } });
      expect(res.statusCode, password).toBe(400);
      expect(res.json().message).toMatch(message);
    }
    expect(
      (await t.app.inject({ method: 'POST', url: '/dashboard/api/setup', payload: { token, password: PASSWORD } }))
        .statusCode,
    ).toBe(200);
  });

  it('refuses an add-on role without analyst or customer-support, and an unknown role', async () => {
    await expect(
      createOrResetUser(t.deps, { email: 'x@example.com', roles: ['pii-viewer'], merchantAccountId: null }),
    ).rejects.toThrow(/needs analyst or customer-support/);
    await expect(
      createOrResetUser(t.deps, { email: 'x@example.com', roles: ['root'], merchantAccountId: null }),
    ).rejects.toThrow(/Unknown role root/);
  });

  it('answers the same 401 for an unknown address and a wrong password', async () => {
    const user = await createDashboardUser(t, ['analyst']);
    const unknown = await signIn(t, { email: 'nobody@example.com', password: PASSWORD });
    const wrong = await signIn(t, { email: user.email, password: 'wrong password!' });
    expect([unknown.statusCode, wrong.statusCode]).toEqual([401, 401]);
    expect(unknown.json().message).toBe(wrong.json().message);
  });
});

describe('security', () => {
  it('in production names the cookie __Host-svc_session and marks it Secure', async () => {
    const p = await buildProductionApp({ PUBLIC_URL: 'https://pay.example.com' });
    try {
      const user = await createDashboardUser(p, ['analyst']);
      const res = await signIn(p, user);
      expect(res.statusCode, res.body).toBe(200);
      expect(String(res.headers['set-cookie'])).toMatch(
        /^__Host-svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/,
      );
      expect(
        (
          await fromBrowser(
            p,
            { token: setCookieToken(p, res)!, csrf: res.json().csrf_token },
            { method: 'GET', url: '/transactions' },
          )
        ).statusCode,
      ).toBe(200);
    } finally {
      await p.close();
    }
  });

  it('keeps the administrator enrolment to one secret: a second enrolment is refused once one is confirmed', async () => {
    const { browser } = await signedInAdministrator(t);
    expect(
      (await fromBrowser(t, browser, { method: 'POST', url: '/dashboard/api/session/totp-enrollment' })).statusCode,
    ).toBe(409);
  });
});
