import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { findSubscription, ROTATION_GRACE_MS, signingSecrets } from '../webhook-subscriptions.service.ts';

/** Secret rotation and the URL rules (sandbox default, sandbox allowance, production). */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const URL_OK = 'https://hooks.example.com/a';

async function create(app: TestApp, m: string, url: string) {
  return app.request({ method: 'POST', url: '/webhook-subscriptions', payload: { url }, merchantAccountId: m });
}
const rotate = (m: string, id: string) =>
  t.request({ method: 'POST', url: `/webhook-subscriptions/${id}/rotate-secret`, merchantAccountId: m });
const rowOf = async (m: string, id: string) => (await findSubscription(t.deps.db, m, id))!;

describe('happy', () => {
  it('rotates: the new secret is shown once, the previous one signs too for 24 hours', async () => {
    const m = await createMerchantAccount(t.deps);
    const sub = (await create(t, m, URL_OK)).json();
    expect(await signingSecrets(t.deps.db, t.deps, await rowOf(m, sub.id), new Date())).toEqual([sub.secret]);

    const before = Date.now();
    const res = await rotate(m, sub.id);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json();
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(rotated.secret).not.toBe(sub.secret);
    expect(rotated.rotating).toBe(true);
    const until = Date.parse(rotated.rotating_until);
    expect(until).toBeGreaterThanOrEqual(before + ROTATION_GRACE_MS);
    expect(until).toBeLessThanOrEqual(Date.now() + ROTATION_GRACE_MS);

    const read = (
      await t.request({ method: 'GET', url: `/webhook-subscriptions/${sub.id}`, merchantAccountId: m })
    ).json();
    expect(read).toMatchObject({ rotating: true, secret: `whsec_…${rotated.secret.slice(-4)}` });
    const row = await rowOf(m, sub.id);
    expect(await signingSecrets(t.deps.db, t.deps, row, new Date())).toEqual([rotated.secret, sub.secret]);
    // After the grace period only the current secret signs.
    expect(await signingSecrets(t.deps.db, t.deps, row, new Date(until + 1))).toEqual([rotated.secret]);

    const audit = await sql<{
      text: string;
    }>`SELECT row_to_json(a)::text AS text FROM audit_logs a WHERE merchant_account_id = ${m}`.execute(t.deps.db);
    const text = audit.rows.map((r) => r.text).join('\n');
    expect(text).toContain('"action":"updated"');
    for (const secret of [sub.secret, rotated.secret]) {
      expect(text).not.toContain(secret);
      expect(t.logs.join('\n')).not.toContain(secret);
    }
  });

  it('a second rotation while rotating keeps only the secret it replaces', async () => {
    const m = await createMerchantAccount(t.deps);
    const sub = (await create(t, m, URL_OK)).json();
    const second = (await rotate(m, sub.id)).json();
    const third = (await rotate(m, sub.id)).json();
    expect(third.rotating).toBe(true);
    expect(await signingSecrets(t.deps.db, t.deps, await rowOf(m, sub.id), new Date())).toEqual([
      third.secret,
      second.secret,
    ]);
  });

  it('is not rotating once the grace period is over', async () => {
    const m = await createMerchantAccount(t.deps);
    const sub = (await create(t, m, URL_OK)).json();
    await rotate(m, sub.id);
    await t.deps.db
      .updateTable('webhook_subscriptions')
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000) })
      .where('merchant_account_id', '=', m)
      .execute();
    const read = (
      await t.request({ method: 'GET', url: `/webhook-subscriptions/${sub.id}`, merchantAccountId: m })
    ).json();
    expect(read).toMatchObject({ rotating: false, rotating_until: null });
    expect(await signingSecrets(t.deps.db, t.deps, await rowOf(m, sub.id), new Date())).toHaveLength(1);
  });
});

describe('errors', () => {
  // Loopback is allowed in the default sandbox (issue 51): sandbox-local-receivers.test.ts.
  const refused = [
    ['http://hooks.example.com/a', 'https'],
    ['https://10.1.2.3/a', 'private'],
    ['https://192.168.0.10/a', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[::ffff:10.0.0.1]/a', 'private'],
    ['https://user:pw@hooks.example.com/a', 'credentials'],
    ['hooks.example.com/a', 'absolute'],
  ] as const;

  it('refuses URLs outside the rules with 400 naming /url', async () => {
    const m = await createMerchantAccount(t.deps);
    for (const [url, words] of refused) {
      const res = await create(t, m, url);
      expect(res.statusCode, url).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ type: 'error', code: 'bad_request', status: 400 });
      expect(body.message).toContain(words);
      expect(body.details).toEqual([{ location: 'body', pointer: '/url', message: body.message, type: 'value_error' }]);
    }
    const sub = (await create(t, m, URL_OK)).json();
    const res = await t.request({
      method: 'PUT',
      url: `/webhook-subscriptions/${sub.id}`,
      merchantAccountId: m,
      payload: { url: 'http://10.0.0.1/' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].pointer).toBe('/url');
    expect((await rowOf(m, sub.id)).url).toBe(URL_OK);
  });

  it('allows http and private addresses in the sandbox only with WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    const relaxed = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    try {
      for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:3000/in', 'https://10.0.0.5/x']) {
        const res = await create(relaxed, 'default', url);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
      }
      expect((await create(relaxed, 'default', 'ftp://example.com/x')).statusCode).toBe(400);
    } finally {
      await relaxed.close();
    }
  });

  it('refuses http and private addresses in production, even with the allowance', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    try {
      for (const url of [
        'http://hooks.example.com/a',
        'https://127.0.0.1/a',
        'https://localhost/a',
        'https://[::1]/a',
        'https://172.16.0.1/a',
      ]) {
        expect((await create(production, 'default', url)).statusCode, url).toBe(400);
      }
      expect((await create(production, 'default', URL_OK)).statusCode).toBe(201);
    } finally {
      await production.close();
    }
  });
});
