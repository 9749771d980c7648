import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createDashboardUser, enrollTotp, fromBrowser, signedIn } from '../../../../test/helpers/dashboard.ts';
import { INJECT_ORIGIN, newAuthenticator, registerPasskey } from '../../../../test/helpers/dashboard-passkeys.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { buildProductionApp } from '../../../../test/helpers/production.ts';
import { SoftAuthenticator } from '../../../../test/helpers/software-authenticator.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const auditNames = async (merchantAccountId: string, userId: string) =>
  (
    (await t.request({ method: 'GET', url: `/audit-logs?user_id=${userId}&limit=100`, merchantAccountId })).json()
      .items as Array<{ action: string; resource: { name: string } }>
  ).map((e) => `${e.action} ${e.resource.name}`);

describe('happy', () => {
  it("enrols a passkey instead of TOTP at an administrator's first sign-in: `active` under a new id, the old one revoked", async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['administrator'], account);
    const browser = await signedIn(t, user, 'enrollment');
    const started = await fromBrowser(t, browser, {
      method: 'POST',
      url: '/dashboard/api/session/passkey-registration',
    });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.headers['cache-control']).toBe('no-store');
    const options = started.json();
    expect(options).toMatchObject({
      type: 'passkey-registration-options',
      public_key: {
        rp: { id: 'localhost', name: 'svc dashboard' },
        user: { name: user.email },
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        attestation: 'none',
        authenticatorSelection: { userVerification: 'preferred', residentKey: 'preferred' },
        excludeCredentials: [],
      },
    });
    expect(options.public_key.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual([-8, -7, -257]);
    const answer = newAuthenticator().register(options.public_key);
    const confirmed = await fromBrowser(t, browser, {
      method: 'POST',
      url: '/dashboard/api/session/passkey-registration/confirm',
      payload: { ...answer, name: 'Work laptop' },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({ stage: 'active', second_factors: ['passkey'] });
    const token = String(confirmed.headers['set-cookie']).split(';')[0]!.split('=')[1]!;
    expect(token).not.toBe(browser.token);
    expect((await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session' })).statusCode).toBe(401);
    const after = { token, csrf: confirmed.json().csrf_token };
    const api = await fromBrowser(t, after, { method: 'GET', url: '/transactions', merchantAccountId: account });
    expect(api.statusCode, api.body).toBe(200);
    const list = await fromBrowser(t, after, { method: 'GET', url: '/dashboard/api/session/passkeys' });
    expect(list.json().items).toEqual([
      {
        type: 'dashboard-passkey',
        id: expect.any(String),
        name: 'Work laptop',
        transports: ['internal'],
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    expect(await auditNames(account, user.id)).toContain('updated second factor (passkey "Work laptop") enrolled');
  });

  it('lets an active user add passkeys (its own are excluded from new options), list and remove them', async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['analyst'], account);
    const browser = await signedIn(t, user);
    const authenticator = newAuthenticator();
    const first = await registerPasskey(t, browser, authenticator, { name: 'Phone' });
    expect(first.res.statusCode, first.res.body).toBe(200);
    // An active session stays the same session.
    expect(first.res.headers['set-cookie']).toBeUndefined();
    expect(first.res.json().second_factors).toEqual(['passkey']);
    const again = await fromBrowser(t, browser, { method: 'POST', url: '/dashboard/api/session/passkey-registration' });
    expect(again.json().public_key.excludeCredentials).toEqual([
      { id: authenticator.credentials[0]!.id.toString('base64url'), type: 'public-key', transports: ['internal'] },
    ]);
    expect((await registerPasskey(t, browser, authenticator, { name: 'Key' })).res.statusCode).toBe(200);
    const list = (await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session/passkeys' })).json();
    expect(list.items.map((p: { name: string }) => p.name)).toEqual(['Phone', 'Key']);
    expect(JSON.stringify(list)).not.toMatch(/public_key|credential_id/);
    const removed = await fromBrowser(t, browser, {
      method: 'DELETE',
      url: `/dashboard/api/session/passkeys/${list.items[0].id}`,
    });
    expect(removed.statusCode, removed.body).toBe(204);
    const left = (await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session/passkeys' })).json();
    expect(left.items.map((p: { name: string }) => p.name)).toEqual(['Key']);
    expect(await auditNames(account, user.id)).toEqual(
      expect.arrayContaining([
        'updated second factor (passkey "Phone") removed',
        'updated second factor (passkey "Key") enrolled',
        'updated second factor (passkey "Phone") enrolled',
      ]),
    );
  });
});

describe('errors', () => {
  it('refuses an answer from another origin or for another relying party, and spends the challenge either way', async () => {
    const browser = await signedIn(t, await createDashboardUser(t, ['analyst']));
    const authenticator = newAuthenticator();
    for (const bend of [
      { origin: 'http://evil.example' },
      { rpId: 'evil.example' },
      { origin: `${INJECT_ORIGIN}:8080` },
    ]) {
      const { res } = await registerPasskey(t, browser, authenticator, { bend });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        type: 'error',
        code: 'bad_request',
        details: [{ location: 'body', pointer: '/credential' }],
      });
    }
    const started = await fromBrowser(t, browser, {
      method: 'POST',
      url: '/dashboard/api/session/passkey-registration',
    });
    const answer = authenticator.register(started.json().public_key, { origin: 'http://evil.example' });
    const confirm = () =>
      fromBrowser(t, browser, {
        method: 'POST',
        url: '/dashboard/api/session/passkey-registration/confirm',
        payload: answer,
      });
    expect((await confirm()).statusCode).toBe(400);
    // A good answer to the spent challenge is refused too, and so is an answer replayed after a success.
    const good = authenticator.register(started.json().public_key);
    const replayed = await fromBrowser(t, browser, {
      method: 'POST',
      url: '/dashboard/api/session/passkey-registration/confirm',
      payload: good,
    });
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json().message).toMatch(/no registration is waiting/);
    const ok = await registerPasskey(t, browser, authenticator);
    expect(ok.res.statusCode).toBe(200);
    const list = (await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session/passkeys' })).json();
    expect(list.items).toHaveLength(1);
  });

  it("refuses to remove an administrator's last second factor, and another user's passkey is not found", async () => {
    const admin = await createDashboardUser(t, ['administrator']);
    const enrolled = await registerPasskey(t, await signedIn(t, admin, 'enrollment'), newAuthenticator());
    const browser = enrolled.browser;
    const [only] = (await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session/passkeys' })).json()
      .items;
    const refused = await fromBrowser(t, browser, {
      method: 'DELETE',
      url: `/dashboard/api/session/passkeys/${only.id}`,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/last second factor/) });
    const other = await signedIn(t, await createDashboardUser(t, ['analyst']));
    const foreign = await fromBrowser(t, other, {
      method: 'DELETE',
      url: `/dashboard/api/session/passkeys/${only.id}`,
    });
    expect(foreign.statusCode).toBe(404);
    // With TOTP as well, the passkey may go.
    const withTotp = await enrollTotp(t, browser);
    const removed = await fromBrowser(t, withTotp.browser, {
      method: 'DELETE',
      url: `/dashboard/api/session/passkeys/${only.id}`,
    });
    expect(removed.statusCode, removed.body).toBe(204);
  });
});

describe('security', () => {
  it('needs the session cookie (401) and, to change anything, the CSRF header (403)', async () => {
    const browser = await signedIn(t, await createDashboardUser(t, ['analyst']));
    // A well-formed body: the session is checked after the body's shape.
    const payload = newAuthenticator().register({ challenge: 'AAAA', rp: { id: 'localhost' }, user: { id: 'AAAA' } });
    for (const [method, url] of [
      ['POST', '/dashboard/api/session/passkey-registration'],
      ['POST', '/dashboard/api/session/passkey-registration/confirm'],
      ['GET', '/dashboard/api/session/passkeys'],
      ['DELETE', '/dashboard/api/session/passkeys/00000000-0000-7000-8000-000000000000'],
    ] as const) {
      const anonymous = await t.app.inject({ method, url, ...(method === 'POST' ? { payload } : {}) });
      expect([method, url, anonymous.statusCode]).toEqual([method, url, 401]);
      if (method === 'GET') continue;
      const noCsrf = await fromBrowser(t, browser, {
        method,
        url,
        csrf: null,
        ...(method === 'POST' ? { payload } : {}),
      });
      expect([method, url, noCsrf.statusCode]).toEqual([method, url, 403]);
    }
  });

  it('gives a session waiting for its second factor no way to register a passkey', async () => {
    const admin = await createDashboardUser(t, ['administrator']);
    const { browser } = await registerPasskey(t, await signedIn(t, admin, 'enrollment'), newAuthenticator());
    expect(browser.token).toBeTruthy();
    const waiting = await signedIn(t, admin, 'second-factor');
    const started = await fromBrowser(t, waiting, {
      method: 'POST',
      url: '/dashboard/api/session/passkey-registration',
    });
    expect(started.statusCode).toBe(401);
  });

  it("in production, takes the relying party and the one origin from PUBLIC_URL, whatever the request's host", async () => {
    const p = await buildProductionApp({ PUBLIC_URL: 'https://pay.example.com' });
    try {
      const browser = await signedIn(p, await createDashboardUser(p, ['analyst']));
      const started = await fromBrowser(p, browser, {
        method: 'POST',
        url: '/dashboard/api/session/passkey-registration',
      });
      expect(started.json().public_key.rp.id).toBe('pay.example.com');
      // Signed for the host the request named (localhost): refused.
      const { res } = await registerPasskey(p, browser, new SoftAuthenticator(INJECT_ORIGIN), {
        bend: { rpId: 'localhost' },
      });
      expect(res.statusCode).toBe(400);
      const ok = await registerPasskey(p, browser, new SoftAuthenticator('https://pay.example.com'));
      expect(ok.res.statusCode, ok.res.body).toBe(200);
    } finally {
      await p.close();
    }
  });
});
