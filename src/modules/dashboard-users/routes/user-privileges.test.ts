import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  createDashboardUser,
  fromBrowser,
  signedIn,
  signedInAdministrator,
  type Browser,
} from '../../../../test/helpers/dashboard.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { roleId, ROLES, type RoleSlug } from '../../roles/roles.catalogue.ts';

/** The rules of docs/dashboard.md, "Managing users", each through HTTP. */

let t: TestApp;
let admin: Browser;
let a: string;
let b: string;
beforeAll(async () => {
  t = await buildTestApp();
  admin = (await signedInAdministrator(t)).browser;
  a = await createMerchantAccount(t.deps);
  b = await createMerchantAccount(t.deps);
});
afterAll(async () => t.close());

let counter = 0;
const email = () => `p${++counter}-${Date.now()}@example.com`;
const role = (slug: RoleSlug, merchantAccountId?: string | null) => ({
  role_id: roleId(slug),
  ...(merchantAccountId !== undefined ? { merchant_account_id: merchantAccountId } : {}),
});

const invite = (as: Browser, roles: unknown[], account = a) =>
  fromBrowser(t, as, {
    method: 'POST',
    url: '/users',
    payload: { email_address: email(), roles },
    merchantAccountId: account,
  });
const update = (as: Browser, id: string, payload: unknown, account = a) =>
  fromBrowser(t, as, { method: 'PUT', url: `/users/${id}`, payload, merchantAccountId: account });

async function userManager(): Promise<{ id: string; browser: Browser }> {
  const user = await createDashboardUser(t, ['user-manager'], a);
  return { id: user.id, browser: await signedIn(t, user) };
}

describe('security', () => {
  it('lets a user manager give any role but administrator in its account, and nothing in others or every account', async () => {
    const { browser } = await userManager();
    expect((await invite(browser, [role('customer-support'), role('pii-viewer')])).statusCode).toBe(201);
    expect((await invite(browser, [role('system-manager'), role('user-manager')])).statusCode).toBe(201);
    const adminRole = await invite(browser, [role('administrator')]);
    expect(adminRole.statusCode).toBe(403);
    expect(adminRole.json().message).toBe('Only an administrator may give or take the administrator role');
    expect((await invite(browser, [role('analyst', null)])).statusCode).toBe(403);
    expect((await invite(browser, [role('analyst', b)])).statusCode).toBe(403);
    // Acting on B, where it holds no role: refused before anything.
    expect((await invite(browser, [role('analyst', b)], b)).statusCode).toBe(403);
  });

  it('keeps a user manager from giving itself roles, and from changing or resetting an administrator', async () => {
    const manager = await userManager();
    const self = await update(manager.browser, manager.id, { roles: [role('user-manager'), role('analyst')] });
    expect(self.statusCode).toBe(403);
    const administrator = await createDashboardUser(t, ['administrator'], a);
    for (const res of [
      await update(manager.browser, administrator.id, { status: 'disabled' }),
      await update(manager.browser, administrator.id, { roles: [] }),
      await fromBrowser(t, manager.browser, {
        method: 'POST',
        url: `/users/${administrator.id}/setup-link`,
        merchantAccountId: a,
      }),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
    }
    const row = await t.deps.db
      .selectFrom('dashboard_users')
      .select('status')
      .where('id', '=', administrator.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
  });

  it('lets a user manager disable and re-enable a user of its account, audited with it as the actor', async () => {
    const manager = await userManager();
    const support = (await invite(manager.browser, [role('customer-support')])).json();
    expect((await update(manager.browser, support.id, { status: 'disabled' })).json().status).toBe('disabled');
    expect((await update(manager.browser, support.id, { status: 'active' })).json().status).toBe('active');
    const audit = await t.request({ method: 'GET', url: '/audit-logs?resource_type=user', merchantAccountId: a });
    const entries = audit.json().items.filter((e: { resource: { id: string } }) => e.resource.id === support.id);
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['updated', 'updated', 'created']);
    for (const entry of entries) expect(entry.user).toMatchObject({ id: manager.id });
  });

  it('holds a key pair to roles whose scopes it holds', async () => {
    const scopes = ['users.write', ...ROLES.analyst.allow];
    const ok = await t.request({
      method: 'POST',
      url: '/users',
      payload: { email_address: email(), roles: [role('analyst')] },
      scopes,
      merchantAccountId: a,
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const more = await t.request({
      method: 'POST',
      url: '/users',
      payload: { email_address: email(), roles: [role('customer-support')] },
      scopes,
      merchantAccountId: a,
    });
    expect(more.statusCode).toBe(403);
    expect(more.json().message).toContain('Only roles whose scopes the caller holds');
  });

  it("holds an account's administrator to its account: no every-account roles, no other account's users", async () => {
    const local = (await signedInAdministrator(t, a)).browser;
    expect((await invite(local, [role('analyst', null)])).statusCode).toBe(403);
    expect((await invite(local, [role('administrator')])).statusCode).toBe(201);
    const ofB = (await invite(admin, [role('analyst')], b)).json();
    expect(
      (await fromBrowser(t, local, { method: 'GET', url: `/users/${ofB.id}`, merchantAccountId: a })).statusCode,
    ).toBe(404);
    // A user of A and B: the local administrator changes its roles in A only, and sees A's alone.
    const both = (await invite(admin, [role('analyst', a), role('analyst', b)])).json();
    const changed = await update(local, both.id, { roles: [role('customer-support')] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().memberships).toEqual([
      { merchant_account_id: a, role_id: roleId('customer-support'), role_slug: 'customer-support' },
    ]);
    const everything = await fromBrowser(t, admin, { method: 'GET', url: `/users/${both.id}`, merchantAccountId: a });
    expect(everything.json().memberships.map((m: { merchant_account_id: string }) => m.merchant_account_id)).toEqual(
      [a, b].sort(),
    );
    // An every-account role sent back unchanged is no change; taking it away is refused.
    const wide = (await invite(admin, [role('analyst', null), role('analyst', a)])).json();
    const kept = await update(local, wide.id, { roles: [role('analyst', null), role('customer-support', a)] });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(
      kept
        .json()
        .memberships.map((m: { role_slug: string }) => m.role_slug)
        .sort(),
    ).toEqual(['analyst', 'customer-support']);
    expect((await update(local, wide.id, { roles: [role('customer-support', a)] })).statusCode).toBe(200);
    expect(
      (await fromBrowser(t, admin, { method: 'GET', url: `/users/${wide.id}`, merchantAccountId: a })).json()
        .memberships,
    ).toHaveLength(2);
    // Its name, status and password reach into B: refused.
    expect((await update(local, both.id, { status: 'disabled' })).statusCode).toBe(403);
    expect(
      (await fromBrowser(t, local, { method: 'POST', url: `/users/${both.id}/setup-link`, merchantAccountId: a }))
        .statusCode,
    ).toBe(403);
  });

  it('lets only an administrator of every account give every-account roles', async () => {
    const res = await invite(admin, [role('analyst', null)]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().memberships).toEqual([
      { merchant_account_id: null, role_id: roleId('analyst'), role_slug: 'analyst' },
    ]);
  });

  it('keeps a user from disabling itself or removing its own last administrator role', async () => {
    const { user, browser } = await signedInAdministrator(t, a);
    const disable = await update(browser, user.id, { status: 'disabled' });
    expect(disable.statusCode).toBe(403);
    expect(disable.json().message).toBe('A user cannot disable itself');
    const demote = await update(browser, user.id, { roles: [role('analyst')] });
    expect(demote.statusCode).toBe(403);
    expect(demote.json().message).toBe('A user cannot remove its own last administrator role');
    expect((await update(browser, user.id, { display_name: 'Still me' })).statusCode).toBe(200);
  });

  it('refuses the user routes to a role without users.read or users.write', async () => {
    const support = await signedIn(t, await createDashboardUser(t, ['customer-support'], a));
    expect((await fromBrowser(t, support, { method: 'GET', url: '/users', merchantAccountId: a })).statusCode).toBe(
      403,
    );
    expect((await invite(support, [role('customer-support')])).statusCode).toBe(403);
  });
});
