import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import {
  createDashboardUser,
  fromBrowser,
  PASSWORD,
  signedIn,
  signedInAdministrator,
} from '../../../../test/helpers/dashboard.ts';
import { purgeDashboardSessions } from '../../../jobs/purge-dashboard-sessions.job.ts';
import { FAILED_LOOKUPS_PER_MINUTE } from '../../../http/failed-lookups.ts';
import { createOrResetUser } from '../../dashboard-users/dashboard-users.service.ts';
import { tokenHash } from '../session-cookie.ts';
import { openTotpSecret } from '../../dashboard-users/totp.ts';
import { Keyring } from '../../../vault/keyring.ts';
import { rewrapTotpSecrets } from '../../../vault/rotate.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('happy', () => {
  it('purges sessions and set-up links a day after their end, and keeps the live ones', async () => {
    const user = await createDashboardUser(t, ['analyst']);
    const [old, live] = [await signedIn(t, user), await signedIn(t, user)];
    const link = await createOrResetUser(t.deps, { email: user.email, roles: ['analyst'], merchantAccountId: null });
    const linkHash = tokenHash(new URL(link.url).searchParams.get('token')!);
    const longAgo = new Date(Date.now() - 25 * 3600 * 1000);
    await t.deps.db
      .updateTable('dashboard_sessions')
      .set({ expires_at: longAgo })
      .where('id_hash', '=', tokenHash(old.token))
      .execute();
    await t.deps.db
      .updateTable('dashboard_setup_tokens')
      .set({ expires_at: longAgo })
      .where('token_hash', '=', linkHash)
      .execute();
    await purgeDashboardSessions.handle({}, { deps: t.deps, jobId: 'test', attempt: 1, log: t.app.log } as never);
    const sessions = await t.deps.db
      .selectFrom('dashboard_sessions')
      .select('id_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions.map((s) => s.id_hash)).toEqual([tokenHash(live.token)]);
    expect(
      await t.deps.db
        .selectFrom('dashboard_setup_tokens')
        .select('token_hash')
        .where('token_hash', '=', linkHash)
        .execute(),
    ).toEqual([]);
    expect((await fromBrowser(t, live, { method: 'GET', url: '/dashboard/api/session' })).statusCode).toBe(200);
  });
});

describe('security', () => {
  it('re-wraps TOTP secrets under a new vault master key (svc keys rotate-vault): the same secret opens with the new key alone', async () => {
    const { user, secret } = await signedInAdministrator(t);
    const oldKey = (t.deps.keyring as unknown as { current: { key: Buffer } }).current.key;
    const newKey = randomBytes(32);
    const during = new Keyring(newKey, [oldKey]);
    expect(await rewrapTotpSecrets(t.deps.db, during)).toBeGreaterThanOrEqual(1);
    expect(await rewrapTotpSecrets(t.deps.db, during)).toBe(0);
    const row = await t.deps.db
      .selectFrom('dashboard_users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.totp_master_key_id).toBe(during.currentId);
    expect(await openTotpSecret(new Keyring(newKey), user.id, row.totp_sealed!, row.totp_master_key_id!)).toBe(secret);
    await expect(
      openTotpSecret(new Keyring(newKey), 'another-user', row.totp_sealed!, row.totp_master_key_id!),
    ).rejects.toThrow();
  });

  it("counts unknown set-up tokens in the client address's failed-lookup budget, and still serves a real link", async () => {
    await freshWindow();
    const address = '192.0.2.91';
    const guess = () =>
      t.app.inject({
        method: 'POST',
        url: '/dashboard/api/setup',
        remoteAddress: address,
        payload: { token: randomBytes(32).toString('base64url'), password: PASSWORD },
      });
    const statuses: number[] = [];
    for (let i = 0; i < FAILED_LOOKUPS_PER_MINUTE; i++) statuses.push((await guess()).statusCode);
    expect(statuses.filter((s) => s !== 404)).toEqual([]);
    expect((await guess()).statusCode).toBe(429);
    const link = await createOrResetUser(t.deps, {
      email: `setup-${Date.now()}@example.com`,
      roles: ['analyst'],
      merchantAccountId: null,
    });
    const real = await t.app.inject({
      method: 'POST',
      url: '/dashboard/api/setup',
      remoteAddress: address,
      payload: { token: new URL(link.url).searchParams.get('token'), password: PASSWORD },
    });
    expect(real.statusCode, real.body).toBe(200);
  });

  it('refuses the session routes without a session (401), and a set-up token of the wrong shape (422)', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/api/session' })).statusCode).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/dashboard/api/session',
          headers: { cookie: 'svc_session=not-a-token' },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/dashboard/api/session/totp', payload: { code: '123456' } }))
        .statusCode,
    ).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/dashboard/api/setup',
          payload: { token: 'short', password: PASSWORD },
        })
      ).statusCode,
    ).toBe(422);
  });
});
