import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  createDashboardUser,
  enrollTotp,
  fromBrowser,
  setCookieToken,
  signedIn,
  signIn,
  totpCode,
  type DashboardUser,
} from '../../../../test/helpers/dashboard.ts';
import {
  newAuthenticator,
  passkeyChallenge,
  registerPasskey,
  sendAssertion,
  signInWithPasskey,
} from '../../../../test/helpers/dashboard-passkeys.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import type { SoftAuthenticator } from '../../../../test/helpers/software-authenticator.ts';
import { updateUser } from '../../dashboard-users/dashboard-users.repo.ts';
import { MAX_FAILED_ATTEMPTS } from '../sign-in.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

let addresses = 0;
/** Each test signs in from its own address: the per-address limit (20 a minute) is not what these test. */
const nextAddress = () => `198.51.100.${++addresses}`;

/** An administrator whose only second factor is a passkey of `authenticator`. */
async function passkeyAdministrator(
  merchantAccountId: string | null = null,
): Promise<{ user: DashboardUser; authenticator: SoftAuthenticator }> {
  const user = await createDashboardUser(t, ['administrator'], merchantAccountId);
  const authenticator = newAuthenticator();
  const { res } = await registerPasskey(t, await signedIn(t, user, 'enrollment'), authenticator);
  expect(res.statusCode, res.body).toBe(200);
  return { user, authenticator };
}

const passkeyRows = (userId: string) =>
  t.deps.db.selectFrom('dashboard_passkeys').selectAll().where('user_id', '=', userId).execute();

describe('happy', () => {
  it('signs in with password and passkey: the answer names the factors, then `active` under a new id', async () => {
    const account = await createMerchantAccount(t.deps);
    const { user, authenticator } = await passkeyAdministrator(account);
    const address = nextAddress();
    const first = await signIn(t, user, { remoteAddress: address });
    expect(first.json()).toMatchObject({ stage: 'second-factor', second_factors: ['passkey'], user: null });
    const waiting = setCookieToken(t, first)!;
    const options = await passkeyChallenge(t, waiting);
    expect(options.statusCode, options.body).toBe(200);
    expect(options.json()).toMatchObject({
      type: 'passkey-sign-in-options',
      public_key: {
        rpId: 'localhost',
        userVerification: 'preferred',
        allowCredentials: [{ id: authenticator.credentials[0]!.id.toString('base64url'), type: 'public-key' }],
      },
    });
    const res = await sendAssertion(t, waiting, authenticator.assert(options.json().public_key), address);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ stage: 'active', second_factors: ['passkey'], user: { id: user.id } });
    const token = setCookieToken(t, res)!;
    expect(token).not.toBe(waiting);
    const old = await t.app.inject({
      method: 'GET',
      url: '/dashboard/api/session',
      headers: { cookie: `svc_session=${waiting}` },
    });
    expect(old.statusCode).toBe(401);
    const browser = { token, csrf: res.json().csrf_token };
    expect(
      (await fromBrowser(t, browser, { method: 'GET', url: '/transactions', merchantAccountId: account })).statusCode,
    ).toBe(200);
    const [row] = await passkeyRows(user.id);
    expect(row).toMatchObject({ sign_count: 1, last_used_at: expect.any(Date) });
    const log = (
      await t.request({ method: 'GET', url: `/audit-logs?user_id=${user.id}&limit=5`, merchantAccountId: account })
    ).json().items;
    expect(log[0]).toMatchObject({
      action: 'created',
      resource: { type: 'dashboard-session', name: 'sign-in with passkey' },
    });
  });

  it('offers both factors to a user with TOTP and a passkey; either completes the sign-in', async () => {
    const user = await createDashboardUser(t, ['analyst']);
    const authenticator = newAuthenticator();
    const { secret, browser } = await enrollTotp(t, await signedIn(t, user));
    expect((await registerPasskey(t, browser, authenticator)).res.statusCode).toBe(200);
    const address = nextAddress();
    const first = await signIn(t, user, { remoteAddress: address });
    expect(first.json().second_factors).toEqual(['totp', 'passkey']);
    const byCode = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/session/totp',
      headers: { cookie: `svc_session=${setCookieToken(t, first)}` },
      payload: { code: await totpCode(secret, 1) },
      remoteAddress: address,
    });
    expect(byCode.json().stage).toBe('active');
    expect((await signInWithPasskey(t, user, authenticator, {}, address)).res.json().stage).toBe('active');
  });
});

describe('errors', () => {
  it('refuses a replayed answer: the challenge is spent by the first try, accepted or not', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const address = nextAddress();
    const waiting = setCookieToken(t, await signIn(t, user, { remoteAddress: address }))!;
    const options = (await passkeyChallenge(t, waiting)).json().public_key;
    const refused = await sendAssertion(
      t,
      waiting,
      authenticator.assert(options, { origin: 'http://evil.example' }),
      address,
    );
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({
      type: 'error',
      code: 'unauthorized',
      status: 401,
      message: 'The passkey was not accepted: try again',
      details: [],
    });
    // A good answer to the same challenge: spent by the refused one.
    expect((await sendAssertion(t, waiting, authenticator.assert(options), address)).statusCode).toBe(401);
    const fresh = (await passkeyChallenge(t, waiting)).json().public_key;
    const answer = authenticator.assert(fresh);
    expect((await sendAssertion(t, waiting, answer, address)).statusCode).toBe(200);
    // The accepted answer again, on a new sign-in waiting for its passkey: refused, with or without a challenge pending.
    const next = setCookieToken(t, await signIn(t, user, { remoteAddress: address }))!;
    expect((await sendAssertion(t, next, answer, address)).statusCode).toBe(401);
    await passkeyChallenge(t, next);
    expect((await sendAssertion(t, next, answer, address)).statusCode).toBe(401);
  });

  it('refuses an answer to a challenge older than 5 minutes', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const address = nextAddress();
    const waiting = setCookieToken(t, await signIn(t, user, { remoteAddress: address }))!;
    const options = (await passkeyChallenge(t, waiting)).json().public_key;
    await t.deps.db
      .updateTable('dashboard_sessions')
      .set({ webauthn_challenge_expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', user.id)
      .where('stage', '=', 'second-factor')
      .execute();
    expect((await sendAssertion(t, waiting, authenticator.assert(options), address)).statusCode).toBe(401);
  });

  it('refuses another origin, another relying party and a registration answer type', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const address = nextAddress();
    for (const bend of [{ origin: 'https://localhost' }, { rpId: 'example.com' }, { type: 'webauthn.create' }]) {
      const { res } = await signInWithPasskey(t, user, authenticator, bend, address);
      expect([bend, res.statusCode]).toEqual([bend, 401]);
    }
    expect((await signInWithPasskey(t, user, authenticator, {}, address)).res.statusCode).toBe(200);
  });

  it('refuses a cloned authenticator: a signature counter not above the stored one', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const address = nextAddress();
    const clone = authenticator.clone();
    expect((await signInWithPasskey(t, user, authenticator, { signCount: 5 }, address)).res.statusCode).toBe(200);
    // The clone answers with its own counter, 1: lower.
    const waiting = setCookieToken(t, await signIn(t, user, { remoteAddress: address }))!;
    const options = (await passkeyChallenge(t, waiting)).json().public_key;
    const cloned = await sendAssertion(t, waiting, authenticator.assert(options, {}, clone), address);
    expect(cloned.statusCode).toBe(401);
    // Equal to the stored one: refused too.
    expect((await signInWithPasskey(t, user, authenticator, { signCount: 5 }, address)).res.statusCode).toBe(401);
    expect((await passkeyRows(user.id))[0]!.sign_count).toBe(5);
    expect((await signInWithPasskey(t, user, authenticator, { signCount: 6 }, address)).res.statusCode).toBe(200);
  });

  it("refuses another user's passkey, and a user without passkeys gets no options", async () => {
    const { user } = await passkeyAdministrator();
    const other = await passkeyAdministrator();
    const address = nextAddress();
    expect((await signInWithPasskey(t, user, other.authenticator, {}, address)).res.statusCode).toBe(401);
    const totpOnly = await createDashboardUser(t, ['analyst']);
    await enrollTotp(t, await signedIn(t, totpOnly));
    const waiting = setCookieToken(t, await signIn(t, totpOnly, { remoteAddress: address }))!;
    const none = await passkeyChallenge(t, waiting);
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toBe('This user has no passkey: use the authenticator app');
  });
});

describe('security', () => {
  it(`counts refused passkeys toward the lockout: ${MAX_FAILED_ATTEMPTS} lock the user out, even with the right passkey`, async () => {
    const account = await createMerchantAccount(t.deps);
    const { user, authenticator } = await passkeyAdministrator(account);
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
      statuses.push(
        (await signInWithPasskey(t, user, authenticator, { origin: 'http://evil.example' }, address)).res.statusCode,
      );
    expect(statuses).toEqual(Array(MAX_FAILED_ATTEMPTS).fill(401));
    const locked = await signInWithPasskey(t, user, authenticator, {}, address).catch(() => null);
    // The password step itself is refused now (429), before any passkey.
    expect(locked).toBeNull();
    expect((await signIn(t, user, { remoteAddress: address })).statusCode).toBe(429);
    const log = (
      await t.request({
        method: 'GET',
        url: `/audit-logs?user_id=${user.id}&action=canceled`,
        merchantAccountId: account,
      })
    ).json().items;
    expect(log.map((e: { resource: { name: string } }) => e.resource.name)).toContain(
      'failed sign-in: passkey refused; locked out',
    );
    await updateUser(t.deps.db, user.id, { locked_until: new Date(Date.now() - 1000) });
    expect((await signInWithPasskey(t, user, authenticator, {}, address)).res.statusCode).toBe(200);
  });

  it('refuses a passkey answer while locked out (429), in a session that got past the password before the lockout', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const address = nextAddress();
    const waiting = setCookieToken(t, await signIn(t, user, { remoteAddress: address }))!;
    const options = (await passkeyChallenge(t, waiting)).json().public_key;
    await updateUser(t.deps.db, user.id, { locked_until: new Date(Date.now() + 60_000) });
    const res = await sendAssertion(t, waiting, authenticator.assert(options), address);
    expect(res.statusCode).toBe(429);
  });

  it('refuses a TOTP code for a passkey-only user, even one of a secret it started to enrol and never confirmed', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const address = nextAddress();
    const active = await signInWithPasskey(t, user, authenticator, {}, address);
    const browser = { token: setCookieToken(t, active.res)!, csrf: active.res.json().csrf_token };
    const started = await fromBrowser(t, browser, { method: 'POST', url: '/dashboard/api/session/totp-enrollment' });
    const secret = started.json().secret as string;
    const first = await signIn(t, user, { remoteAddress: address });
    expect(first.json().second_factors).toEqual(['passkey']);
    const byCode = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/session/totp',
      headers: { cookie: `svc_session=${setCookieToken(t, first)}` },
      payload: { code: await totpCode(secret) },
      remoteAddress: address,
    });
    expect(byCode.statusCode).toBe(401);
  });

  it('needs a session waiting for its second factor: none, or an active one, is 401', async () => {
    const { user, authenticator } = await passkeyAdministrator();
    const options = { challenge: 'AAAA', rpId: 'localhost' };
    expect((await t.app.inject({ method: 'POST', url: '/dashboard/api/session/passkey-challenge' })).statusCode).toBe(
      401,
    );
    const active = (await signInWithPasskey(t, user, authenticator, {}, nextAddress())).res;
    const token = setCookieToken(t, active)!;
    expect((await passkeyChallenge(t, token)).statusCode).toBe(401);
    expect((await sendAssertion(t, token, authenticator.assert(options), nextAddress())).statusCode).toBe(401);
  });
});
