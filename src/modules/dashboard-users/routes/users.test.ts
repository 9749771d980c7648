import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  fromBrowser,
  PASSWORD,
  signedIn,
  signedInAdministrator,
  type Browser,
} from '../../../../test/helpers/dashboard.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { roleId, type RoleSlug } from '../../roles/roles.catalogue.ts';
import { usersQuery } from '../dashboard-users.repo.ts';

let t: TestApp;
let admin: Browser;
beforeAll(async () => {
  t = await buildTestApp();
  admin = (await signedInAdministrator(t)).browser;
});
afterAll(async () => t.close());

let counter = 0;
const email = (name = 'user') => `${name}${++counter}-${Date.now()}@example.com`;
const roles = (...slugs: RoleSlug[]) => slugs.map((slug) => ({ role_id: roleId(slug) }));

interface User {
  id: string;
  email_address: string;
  status: string;
  memberships: Array<{ merchant_account_id: string | null; role_slug: string }>;
  setup_url?: string;
}

async function invite(account: string, body: Record<string, unknown>, as = admin) {
  return fromBrowser(t, as, { method: 'POST', url: '/users', payload: body, merchantAccountId: account });
}

async function invited(account: string, slugs: RoleSlug[] = ['analyst'], address = email()): Promise<User> {
  const res = await invite(account, { email_address: address, roles: roles(...slugs) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function list(account: string, query = '', as = admin) {
  const res = await fromBrowser(t, as, { method: 'GET', url: `/users${query}`, merchantAccountId: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: User[]; next_cursor: string | null; previous_cursor: string | null; limit: number };
}

/** Follows the set-up link of an answer and signs in with the password chosen. */
async function setUp(user: User): Promise<Browser> {
  const token = new URL(user.setup_url!).searchParams.get('token')!;
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/api/setup',
    payload: { token, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return signedIn(t, { id: user.id, email: user.email_address, password: PASSWORD });
}

describe('happy', () => {
  it('invites a user with a one-time set-up link that signs it in, and audits it with the actor', async () => {
    const account = await createMerchantAccount(t.deps);
    const address = email('Ada');
    const res = await invite(account, {
      email_address: address,
      display_name: 'Ada',
      roles: roles('customer-support', 'pii-viewer'),
    });
    expect(res.statusCode, res.body).toBe(201);
    const user = res.json();
    expect(user).toMatchObject({
      type: 'user',
      email_address: address,
      display_name: 'Ada',
      status: 'active',
      password_set: false,
      two_factor_enabled: false,
      memberships: [
        { merchant_account_id: account, role_id: roleId('customer-support'), role_slug: 'customer-support' },
        { merchant_account_id: account, role_id: roleId('pii-viewer'), role_slug: 'pii-viewer' },
      ],
    });
    expect(user.setup_url).toMatch(new RegExp(`^${t.config.publicUrl}/dashboard/setup\\?token=[A-Za-z0-9_-]{40,}$`));
    const browser = await setUp(user);
    const session = await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session' });
    expect(session.json().user.email).toBe(address);
    const got = await fromBrowser(t, admin, { method: 'GET', url: `/users/${user.id}`, merchantAccountId: account });
    expect(got.json()).toMatchObject({ id: user.id, password_set: true });
    expect(got.json().setup_url).toBeUndefined();
    const audit = await t.request({
      method: 'GET',
      url: '/audit-logs?resource_type=user',
      merchantAccountId: account,
    });
    expect(audit.json().items[0]).toMatchObject({
      action: 'created',
      resource: { type: 'user', id: user.id },
      user: { email_address: expect.stringContaining('@example.com') },
    });
  });

  it("lists the account's users newest first with cursors, filtered by e-mail prefix, status and role", async () => {
    const account = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const made: User[] = [];
    for (let i = 0; i < 5; i++)
      made.push(await invited(account, i % 2 ? ['analyst'] : ['customer-support'], email(`Zed${i}x`)));
    await invited(other, ['analyst']);
    const first = await list(account, '?limit=2');
    const ids = made.map((u) => u.id).reverse();
    // The administrator (every account) is one of the account's users too.
    const everyone = [...first.items];
    let page = first;
    while (page.next_cursor) {
      page = await list(account, `?limit=2&cursor=${page.next_cursor}`);
      everyone.push(...page.items);
    }
    expect(everyone.map((u) => u.id).filter((id) => ids.includes(id))).toEqual(ids);
    expect(everyone.some((u) => u.memberships.some((m) => m.merchant_account_id === other))).toBe(false);
    const back = await list(account, `?limit=2&cursor=${page.previous_cursor}`);
    expect(back.items.length).toBe(2);

    const prefix = made[2]!.email_address.slice(0, 5).toUpperCase();
    expect((await list(account, `?email_address=${prefix}`)).items.map((u) => u.id)).toEqual([made[2]!.id]);
    expect((await list(account, '?email_address=zz%25')).items).toEqual([]);
    const support = await list(account, `?role_id=${roleId('customer-support')}`);
    expect(support.items.map((u) => u.id)).toEqual([made[4]!.id, made[2]!.id, made[0]!.id]);
    await fromBrowser(t, admin, {
      method: 'PUT',
      url: `/users/${made[1]!.id}`,
      payload: { status: 'disabled' },
      merchantAccountId: account,
    });
    expect((await list(account, '?status=disabled')).items.map((u) => u.id)).toEqual([made[1]!.id]);
  });

  it('replaces roles, renames, and issues a new set-up link that retires the old one and ends sessions', async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await invited(account, ['analyst']);
    const oldToken = new URL(user.setup_url!).searchParams.get('token')!;
    const browser = await setUp(user);
    const res = await fromBrowser(t, admin, {
      method: 'PUT',
      url: `/users/${user.id}`,
      payload: { display_name: 'Renamed', roles: roles('customer-support', 'report-viewer') },
      merchantAccountId: account,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      display_name: 'Renamed',
      memberships: [
        { merchant_account_id: account, role_slug: 'customer-support' },
        { merchant_account_id: account, role_slug: 'report-viewer' },
      ],
    });
    const link = await fromBrowser(t, admin, {
      method: 'POST',
      url: `/users/${user.id}/setup-link`,
      merchantAccountId: account,
    });
    expect(link.statusCode, link.body).toBe(201);
    expect(link.json()).toMatchObject({ type: 'user-setup-link', user_id: user.id });
    expect((await fromBrowser(t, browser, { method: 'GET', url: '/dashboard/api/session' })).statusCode).toBe(401);
    const old = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/setup',
      payload: { token: oldToken, password: PASSWORD },
    });
    expect(old.statusCode).toBe(404);
    await setUp({ ...user, setup_url: link.json().setup_url });
  });
});

describe('errors', () => {
  it('answers 409 for an address in use, whatever its case', async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await invited(account);
    const res = await invite(account, { email_address: user.email_address.toUpperCase(), roles: roles('analyst') });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'duplicate_record', resource_id: user.id });
  });

  it('answers one 201 and one 409 to two concurrent invitations of one address', async () => {
    const account = await createMerchantAccount(t.deps);
    const address = email('race');
    const answers = await Promise.all([
      invite(account, { email_address: address, roles: roles('analyst') }),
      invite(account, { email_address: address, roles: roles('customer-support') }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const rows = await t.deps.db
      .selectFrom('dashboard_users')
      .select('id')
      .where(sql`lower(email)`, '=', address.toLowerCase())
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses unknown roles, add-ons without their base role, unknown accounts and unknown users', async () => {
    const account = await createMerchantAccount(t.deps);
    const unknown = await invite(account, {
      email_address: email(),
      roles: [{ role_id: '00000000-0000-4000-8000-000000000000' }],
    });
    expect(unknown.statusCode).toBe(400);
    const addOn = await invite(account, { email_address: email(), roles: roles('pii-viewer') });
    expect(addOn.statusCode).toBe(400);
    expect(addOn.json().message).toContain('needs analyst or customer-support');
    const noAccount = await invite(account, {
      email_address: email(),
      roles: [{ role_id: roleId('analyst'), merchant_account_id: 'no-such-account' }],
    });
    expect(noAccount.statusCode).toBe(400);
    const noRoles = await invite(account, { email_address: email(), roles: [] });
    expect(noRoles.statusCode).toBe(422);
    const user = await invited(account);
    const none = await fromBrowser(t, admin, {
      method: 'PUT',
      url: `/users/${user.id}`,
      payload: { roles: [] },
      merchantAccountId: account,
    });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toBe('A user keeps at least one role; disable it instead');
    const missing = await fromBrowser(t, admin, {
      method: 'GET',
      url: '/users/00000000-0000-4000-8000-000000000000',
      merchantAccountId: account,
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: () => ({ method: 'GET', url: '/users' }), scope: 'users.read' });
  runScopeTests(() => t, {
    request: () => ({ method: 'POST', url: '/users', payload: { email_address: email(), roles: roles('analyst') } }),
    scope: 'users.write',
  });

  it('never answers a password hash, an authenticator secret or a token', async () => {
    const account = await createMerchantAccount(t.deps);
    const { user } = await signedInAdministrator(t, account);
    const row = await t.deps.db
      .selectFrom('dashboard_users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    const answers = [
      await fromBrowser(t, admin, { method: 'GET', url: `/users/${user.id}`, merchantAccountId: account }),
      await fromBrowser(t, admin, { method: 'GET', url: '/users', merchantAccountId: account }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      for (const secret of [row.password_hash!, row.totp_sealed!, 'argon2id', 'totp', 'token', 'password_hash'])
        expect(res.body).not.toContain(secret);
    }
  });

  it("refuses a disabled user's session at its next request and ends its sessions", async () => {
    const account = await createMerchantAccount(t.deps);
    const user = await invited(account, ['customer-support']);
    const browser = await setUp(user);
    const before = await fromBrowser(t, browser, { method: 'GET', url: '/transactions', merchantAccountId: account });
    expect(before.statusCode).toBe(200);
    const res = await fromBrowser(t, admin, {
      method: 'PUT',
      url: `/users/${user.id}`,
      payload: { status: 'disabled' },
      merchantAccountId: account,
    });
    expect(res.statusCode, res.body).toBe(200);
    const after = await fromBrowser(t, browser, { method: 'GET', url: '/transactions', merchantAccountId: account });
    expect(after.statusCode).toBe(401);
    const live = await t.deps.db
      .selectFrom('dashboard_sessions')
      .select('id')
      .where('user_id', '=', user.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toEqual([]);
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/session',
      payload: { email: user.email_address, password: PASSWORD },
    });
    expect(signIn.statusCode).toBe(401);
  });

  it("shows another account's users to nobody: 404 and absent from the list", async () => {
    const [a, b] = [await createMerchantAccount(t.deps), await createMerchantAccount(t.deps)];
    const ofA = await invited(a);
    expect(
      (await fromBrowser(t, admin, { method: 'GET', url: `/users/${ofA.id}`, merchantAccountId: b })).statusCode,
    ).toBe(404);
    expect((await list(b)).items.map((u) => u.id)).not.toContain(ofA.id);
  });

  it.skipIf(!usesPostgres())(
    'answers the e-mail, status and role filters from indexes (PostgreSQL EXPLAIN)',
    async () => {
      const account = await createMerchantAccount(t.deps);
      await sql`INSERT INTO dashboard_users (id, email, display_name, created_at)
      SELECT gen_random_uuid(), 'bulk' || n || '@example.com', 'Bulk ' || n, now() - n * interval '1 second'
      FROM generate_series(1, 5000) AS n`.execute(t.deps.db);
      await sql`INSERT INTO dashboard_memberships (user_id, merchant_account_id, role)
      SELECT id, ${account}, 'analyst' FROM dashboard_users WHERE email LIKE 'bulk%'`.execute(t.deps.db);
      await sql`ANALYZE dashboard_users`.execute(t.deps.db);
      await sql`ANALYZE dashboard_memberships`.execute(t.deps.db);
      const plan = async (filter: Omit<Parameters<typeof usersQuery>[1], 'merchantAccountId'>) => {
        const query = usersQuery(t.deps.db, { merchantAccountId: account, ...filter })
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(21);
        return (await query.explain<{ 'QUERY PLAN': string }>()).map((row) => row['QUERY PLAN']).join('\n');
      };
      expect(await plan({ emailPrefix: 'bulk4999' })).toContain('dashboard_users_email_prefix_idx');
      expect(await plan({})).toMatch(/dashboard_users_created_idx|dashboard_memberships_account_role_idx/);
      expect(await plan({ role: 'analyst' })).toMatch(
        /dashboard_users_created_idx|dashboard_memberships_account_role_idx/,
      );
      expect(await plan({ status: 'disabled' })).toContain('dashboard_users_status_created_idx');
    },
  );
});
