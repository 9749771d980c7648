import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  createDashboardUser,
  fromBrowser,
  setCookieToken,
  signedIn,
  signedInAdministrator,
  signIn,
  totpCode,
  type Browser,
} from '../../../../test/helpers/dashboard.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { updateUser } from '../../dashboard-users/dashboard-users.repo.ts';
import { tokenHash as hashOf } from '../session-cookie.ts';
import { MAX_FAILED_ATTEMPTS, SIGN_IN_ATTEMPTS_PER_MINUTE } from '../sign-in.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/** Waits for a fresh rate limit window when the current one is about to end, so a test stays in one window. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

const apiKeyBody = { display_name: 'from the console' };
const PAYMENT_SERVICE_BODY = {
  display_name: 'Connected from the console',
  payment_service_definition_id: 'mock-card',
  fields: [
    { key: 'merchant_id', value: 'a-merchant' },
    { key: 'api_key', value: 'sk_console' },
  ],
  accepted_currencies: ['EUR'],
  accepted_countries: ['GB'],
};

describe('security', () => {
  it('session fixation: a session id set before sign-in is never the signed-in one, and a real one presented is revoked', async () => {
    const user = await createDashboardUser(t, ['analyst']);
    const planted = randomBytes(32).toString('base64url');
    const res = await signIn(t, user, { token: planted });
    expect(res.statusCode).toBe(200);
    const issued = setCookieToken(t, res)!;
    expect(issued).not.toBe(planted);
    expect(
      (await fromBrowser(t, { token: planted, csrf: res.json().csrf_token }, { method: 'GET', url: '/transactions' }))
        .statusCode,
    ).toBe(401);
    // An attacker's own live session planted in the victim's browser is ended by the victim's sign-in.
    const attacker = await signedIn(t, await createDashboardUser(t, ['analyst']));
    const victim = await signIn(t, user, { token: attacker.token });
    expect(setCookieToken(t, victim)).not.toBe(attacker.token);
    expect((await fromBrowser(t, attacker, { method: 'GET', url: '/transactions' })).statusCode).toBe(401);
  });

  it('CSRF: a state-changing request the cookie authorizes is refused with 403 without the x-csrf-token header or with a wrong one', async () => {
    const browser = await signedIn(t, await createDashboardUser(t, ['customer-support']));
    const other = await signedIn(t, await createDashboardUser(t, ['customer-support']));
    for (const csrf of [null, '', 'x'.repeat(43), other.csrf]) {
      const res = await fromBrowser(t, browser, {
        method: 'POST',
        url: '/buyers',
        payload: { display_name: 'Mallory' },
        csrf,
      });
      expect(res.statusCode, String(csrf)).toBe(403);
      expect(res.json().message).toMatch(/x-csrf-token/);
      expect(
        (await fromBrowser(t, browser, { method: 'DELETE', url: '/dashboard/api/session', csrf })).statusCode,
      ).toBe(403);
      expect(
        (await fromBrowser(t, browser, { method: 'POST', url: '/dashboard/api/session/sign-out-everywhere', csrf }))
          .statusCode,
      ).toBe(403);
    }
    expect((await fromBrowser(t, browser, { method: 'GET', url: '/buyers', csrf: null })).statusCode).toBe(200);
    expect(
      (await fromBrowser(t, browser, { method: 'POST', url: '/buyers', payload: { display_name: 'Ada' } })).statusCode,
    ).toBe(201);
  });

  it(`lockout: after ${MAX_FAILED_ATTEMPTS} wrong passwords the user is refused even with the right one, and the log says so`, async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['analyst'], account);
    const address = '198.51.100.21';
    const statuses: number[] = [];
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++)
      statuses.push(
        (await signIn(t, { email: user.email, password: `wrong password ${i}` }, { remoteAddress: address }))
          .statusCode,
      );
    expect(statuses).toEqual(Array(MAX_FAILED_ATTEMPTS).fill(401));
    const locked = await signIn(t, user, { remoteAddress: '198.51.100.22' });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
    const log = (
      await t.request({
        method: 'GET',
        url: `/audit-logs?user_id=${user.id}&action=canceled`,
        merchantAccountId: account,
      })
    ).json().items;
    expect(log.slice(0, 2).map((entry: { resource: { name: string } }) => entry.resource.name)).toEqual([
      'failed sign-in: locked out',
      'failed sign-in: wrong password; locked out',
    ]);
    await updateUser(t.deps.db, user.id, { locked_until: new Date(Date.now() - 1000) });
    expect((await signIn(t, user)).statusCode).toBe(200);
  });

  it(`limits sign-in attempts per client address to ${SIGN_IN_ATTEMPTS_PER_MINUTE} a minute, whatever the addresses tried`, async () => {
    await freshWindow();
    const address = '203.0.113.77';
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_ATTEMPTS_PER_MINUTE; i++)
      statuses.push(
        (await signIn(t, { email: `guess${i}@example.com`, password: 'guess guess guess' }, { remoteAddress: address }))
          .statusCode,
      );
    expect(statuses.slice(0, SIGN_IN_ATTEMPTS_PER_MINUTE).filter((s) => s !== 401)).toEqual([]);
    expect(statuses[SIGN_IN_ATTEMPTS_PER_MINUTE]).toBe(429);
    const user = await createDashboardUser(t, ['analyst']);
    expect((await signIn(t, user, { remoteAddress: address })).statusCode).toBe(429);
    expect((await signIn(t, user, { remoteAddress: '203.0.113.78' })).statusCode).toBe(200);
  });

  it("refuses a customer-support user's cookie (403) on an administrator's operations, as it would a token without those scopes", async () => {
    const browser = await signedIn(t, await createDashboardUser(t, ['customer-support']));
    const service = await fromBrowser(t, browser, {
      method: 'POST',
      url: '/payment-services',
      payload: PAYMENT_SERVICE_BODY,
    });
    expect(service.statusCode).toBe(403);
    expect(service.json().message).toBe(
      'The credential lacks the scope payment-services.write required by this operation',
    );
    expect(
      (await fromBrowser(t, browser, { method: 'POST', url: '/api-key-pairs', payload: apiKeyBody })).statusCode,
    ).toBe(403);
    expect((await fromBrowser(t, browser, { method: 'GET', url: '/transactions' })).statusCode).toBe(200);
    // An administrator's cookie may do both.
    const admin = await signedInAdministrator(t);
    expect(
      (await fromBrowser(t, admin.browser, { method: 'POST', url: '/payment-services', payload: PAYMENT_SERVICE_BODY }))
        .statusCode,
    ).toBe(201);
  });

  it('masks buyer personal data for a user without pii-viewer', async () => {
    const account = await createMerchantAccount(t.deps);
    const buyer = await t.request({
      method: 'POST',
      url: '/buyers',
      merchantAccountId: account,
      payload: {
        display_name: 'Ada',
        billing_details: { first_name: 'Ada', last_name: 'Lovelace', email_address: 'ada@example.com' },
      },
    });
    expect(buyer.statusCode, buyer.body).toBe(201);
    const support = await signedIn(t, await createDashboardUser(t, ['customer-support'], account));
    const pii = await signedIn(t, await createDashboardUser(t, ['customer-support', 'pii-viewer'], account));
    const read = async (browser: Browser) =>
      (await fromBrowser(t, browser, { method: 'GET', url: `/buyers/${buyer.json().id}` })).body;
    expect(await read(pii)).toContain('ada@example.com');
    expect(await read(support)).not.toContain('ada@example.com');
  });

  it('holds a user with roles in one merchant account to it: other accounts are refused, instance-wide lists show its own only', async () => {
    const [a, b] = [await createMerchantAccount(t.deps), await createMerchantAccount(t.deps)];
    const admin = await signedInAdministrator(t, a);
    expect(
      (await fromBrowser(t, admin.browser, { method: 'GET', url: '/transactions', merchantAccountId: b })).statusCode,
    ).toBe(403);
    const accounts = (await fromBrowser(t, admin.browser, { method: 'GET', url: '/merchant-accounts?limit=100' }))
      .json()
      .items.map((m: { id: string }) => m.id);
    expect(accounts).toEqual([a]);
    expect(
      (
        await fromBrowser(t, admin.browser, {
          method: 'POST',
          url: '/merchant-accounts',
          payload: { id: `m-${Date.now()}`, display_name: 'New' },
        })
      ).statusCode,
    ).toBe(403);
  });

  it("refuses a disabled user's session at its next request, and applies a role change at once", async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await createDashboardUser(t, ['customer-support'], account);
    const browser = await signedIn(t, user);
    expect(
      (await fromBrowser(t, browser, { method: 'POST', url: '/buyers', payload: { display_name: 'Ada' } })).statusCode,
    ).toBe(201);
    await t.deps.db
      .updateTable('dashboard_memberships')
      .set({ role: 'analyst' })
      .where('user_id', '=', user.id)
      .execute();
    expect(
      (await fromBrowser(t, browser, { method: 'POST', url: '/buyers', payload: { display_name: 'Ada' } })).statusCode,
    ).toBe(403);
    await updateUser(t.deps.db, user.id, { status: 'disabled' });
    expect((await fromBrowser(t, browser, { method: 'GET', url: '/buyers' })).statusCode).toBe(401);
    expect((await signIn(t, user)).statusCode).toBe(401);
  });

  it('ends a session after the idle timeout and after the absolute timeout', async () => {
    const user = await createDashboardUser(t, ['analyst']);
    const idle = await signedIn(t, user);
    const old = await signedIn(t, user);
    const [idleRow, oldRow] = await Promise.all(
      [idle, old].map((b) =>
        t.deps.db
          .selectFrom('dashboard_sessions')
          .select('id_hash')
          .where('id_hash', '=', hashOf(b.token))
          .executeTakeFirstOrThrow(),
      ),
    );
    await t.deps.db
      .updateTable('dashboard_sessions')
      .set({ last_seen_at: new Date(Date.now() - 31 * 60_000) })
      .where('id_hash', '=', idleRow!.id_hash)
      .execute();
    await t.deps.db
      .updateTable('dashboard_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id_hash', '=', oldRow!.id_hash)
      .execute();
    for (const browser of [idle, old])
      expect((await fromBrowser(t, browser, { method: 'GET', url: '/transactions' })).statusCode).toBe(401);
  });

  it('puts no password, password hash or TOTP secret in any answer, and stores only hashes of session tokens', async () => {
    const { user, secret, browser } = await signedInAdministrator(t);
    const bodies: string[] = [];
    const step = await signIn(t, user);
    bodies.push(step.body, JSON.stringify(step.headers));
    const done = await fromBrowser(
      t,
      { token: setCookieToken(t, step)!, csrf: step.json().csrf_token },
      { method: 'POST', url: '/dashboard/api/session/totp', payload: { code: await totpCode(secret, 1) } },
    );
    bodies.push(done.body, JSON.stringify(done.headers));
    for (const url of ['/dashboard/api/session', '/audit-logs?limit=100', '/roles'])
      bodies.push((await fromBrowser(t, browser, { method: 'GET', url })).body);
    const row = await t.deps.db
      .selectFrom('dashboard_users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.totp_sealed).not.toContain(secret);
    for (const body of bodies) {
      for (const secretText of [user.password, row.password_hash!, '$argon2', secret, row.totp_sealed!])
        expect(body).not.toContain(secretText);
    }
    const tokens = await t.deps.db
      .selectFrom('dashboard_sessions')
      .select(['id_hash'])
      .where('user_id', '=', user.id)
      .execute();
    expect(tokens.map((r) => r.id_hash)).not.toContain(browser.token);
    expect(tokens.map((r) => r.id_hash)).toContain(hashOf(browser.token));
  });
});

describe.skipIf(!usesPostgres())('security on two server processes (PostgreSQL)', () => {
  let peer: TestApp;
  beforeAll(async () => {
    peer = await buildTestApp({}, { peerOf: t });
  });
  afterAll(async () => peer?.close());

  it("refuses a disabled user's session, and applies a role change, on the other process within 5 seconds", async () => {
    const admin = await signedInAdministrator(t);
    const onPeer = (options: Parameters<typeof fromBrowser>[2]) =>
      fromBrowser(t, admin.browser, { ...options, app: peer });
    expect((await onPeer({ method: 'POST', url: '/api-key-pairs', payload: apiKeyBody })).statusCode).toBe(201);
    await t.deps.db.deleteFrom('dashboard_memberships').where('user_id', '=', admin.user.id).execute();
    await t.deps.db
      .insertInto('dashboard_memberships')
      .values({ user_id: admin.user.id, merchant_account_id: null, role: 'analyst' })
      .execute();
    const changedAt = Date.now();
    expect((await onPeer({ method: 'POST', url: '/api-key-pairs', payload: apiKeyBody })).statusCode).toBe(403);
    expect((await onPeer({ method: 'GET', url: '/transactions' })).statusCode).toBe(200);
    await updateUser(t.deps.db, admin.user.id, { status: 'disabled' });
    expect((await onPeer({ method: 'GET', url: '/transactions' })).statusCode).toBe(401);
    expect(Date.now() - changedAt).toBeLessThan(5_000);
  });
});
