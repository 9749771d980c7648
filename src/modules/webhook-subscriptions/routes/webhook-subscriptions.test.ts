import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { activeSubscriptions, basicAuthOf, findSubscription } from '../webhook-subscriptions.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const PASSWORD = 'hunter2-TOPSECRET';
const BODY = {
  url: 'https://hooks.example.com/a',
  authentication: { kind: 'basic', username: 'receiver', password: PASSWORD },
};
const SECRET_FORM = /^whsec_[A-Za-z0-9_-]{43}$/;

async function created(merchantAccountId: string, payload: object = BODY) {
  const res = await t.request({ method: 'POST', url: '/webhook-subscriptions', payload, merchantAccountId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
const get = (m: string, id: string) =>
  t.request({ method: 'GET', url: `/webhook-subscriptions/${id}`, merchantAccountId: m });
const put = (m: string, id: string, payload: object) =>
  t.request({ method: 'PUT', url: `/webhook-subscriptions/${id}`, merchantAccountId: m, payload });
const list = (m: string, query = '') =>
  t.request({ method: 'GET', url: `/webhook-subscriptions${query}`, merchantAccountId: m });
const rowOf = async (m: string, id: string) => (await findSubscription(t.deps.db, m, id))!;

async function auditText(): Promise<string> {
  const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
  return audit.rows.map((r) => r.text).join('\n');
}

describe('happy', () => {
  it('creates with a generated secret shown once, then masks it everywhere; the password is always masked', async () => {
    const m = await createMerchantAccount(t.deps);
    const sub = await created(m);
    expect(sub).toMatchObject({
      type: 'webhook-subscription',
      merchant_account_id: m,
      url: BODY.url,
      active: true,
      rotating: false,
      rotating_until: null,
      authentication: { kind: 'basic', username: 'receiver', password: '********' },
      creator: { id: t.keys.id, name: 'test', email_address: null },
    });
    expect(sub.secret).toMatch(SECRET_FORM);
    const masked = `whsec_…${sub.secret.slice(-4)}`;

    const read = await get(m, sub.id);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ ...sub, secret: masked });
    expect((await list(m)).json().items).toEqual([{ ...sub, secret: masked }]);
    const updated = await put(m, sub.id, { active: false });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ active: false, secret: masked, authentication: { password: '********' } });

    const answers = [read.body, (await list(m)).body, updated.body];
    for (const body of answers) {
      expect(body).not.toContain(sub.secret);
      expect(body).not.toContain(PASSWORD);
    }
    const row = await rowOf(m, sub.id);
    expect(JSON.stringify(row)).not.toContain(sub.secret);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    expect(await basicAuthOf(t.deps.db, t.deps, row)).toEqual({ username: 'receiver', password: PASSWORD });
    const audit = await auditText();
    expect(audit).toContain(sub.id);
    expect(audit).not.toContain(sub.secret);
    expect(audit).not.toContain(PASSWORD);
    expect(t.logs.join('\n')).not.toContain(sub.secret);
    expect(t.logs.join('\n')).not.toContain(PASSWORD);
  });

  it('generates a different secret per subscription; no authentication means null', async () => {
    const m = await createMerchantAccount(t.deps);
    const one = await created(m, { url: 'https://hooks.example.com/one' });
    const two = await created(m, { url: 'https://hooks.example.com/two', active: false, authentication: null });
    expect(one.secret).not.toBe(two.secret);
    expect(one.authentication).toBeNull();
    expect(two).toMatchObject({ active: false, authentication: null });
    expect(await basicAuthOf(t.deps.db, t.deps, await rowOf(m, one.id))).toBeNull();
    expect((await activeSubscriptions(t.deps.db, t.deps, m)).map((r) => r.id)).toEqual([one.id]);
  });

  it('lists newest first with cursor pagination in the list envelope', async () => {
    const m = await createMerchantAccount(t.deps);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await created(m, { url: `https://hooks.example.com/${i}` })).id);
    const newestFirst = [...ids].reverse();
    const first = (await list(m, '?limit=2')).json();
    expect(first).toMatchObject({ limit: 2, previous_cursor: null });
    expect(first.items.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(0, 2));
    const second = (await list(m, `?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    expect(second.items.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(2, 4));
    const third = (await list(m, `?limit=2&cursor=${encodeURIComponent(second.next_cursor)}`)).json();
    expect(third.items.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(4));
    expect(third.next_cursor).toBeNull();
    const back = (await list(m, `?limit=2&cursor=${encodeURIComponent(third.previous_cursor)}`)).json();
    expect(back.items.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(2, 4));
    for (const page of [first, second, third])
      for (const item of page.items) expect(item.secret).toMatch(/^whsec_….{4}$/);
  });

  it('updates url, active and authentication partially', async () => {
    const m = await createMerchantAccount(t.deps);
    const sub = await created(m);
    const moved = await put(m, sub.id, { url: 'https://other.example.org/in' });
    expect(moved.json()).toMatchObject({
      url: 'https://other.example.org/in',
      active: true,
      authentication: { username: 'receiver' },
    });
    const reauth = await put(m, sub.id, { authentication: { kind: 'basic', username: 'second', password: 'pw-2' } });
    expect(reauth.json().authentication).toEqual({ kind: 'basic', username: 'second', password: '********' });
    expect(await basicAuthOf(t.deps.db, t.deps, await rowOf(m, sub.id))).toEqual({
      username: 'second',
      password: 'pw-2',
    });
    expect((await put(m, sub.id, { authentication: null })).json().authentication).toBeNull();
    expect(await basicAuthOf(t.deps.db, t.deps, await rowOf(m, sub.id))).toBeNull();
    const empty = await t.request({ method: 'PUT', url: `/webhook-subscriptions/${sub.id}`, merchantAccountId: m });
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toMatchObject({ url: 'https://other.example.org/in', active: true, authentication: null });
  });

  it('deletes with 204 and no body; the subscription is gone', async () => {
    const m = await createMerchantAccount(t.deps);
    const sub = await created(m);
    const res = await t.request({ method: 'DELETE', url: `/webhook-subscriptions/${sub.id}`, merchantAccountId: m });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(m, sub.id)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `/webhook-subscriptions/${sub.id}`, merchantAccountId: m })).statusCode,
    ).toBe(404);
    expect(await findSubscription(t.deps.db, m, sub.id)).toBeNull();
    expect(await activeSubscriptions(t.deps.db, t.deps, m)).toEqual([]);
    expect(await auditText()).toMatch(
      new RegExp(`"action":"deleted"[^\\n]*${sub.id}|${sub.id}[^\\n]*"action":"deleted"`),
    );
  });
});

describe('errors', () => {
  it('answers 404 for an unknown subscription', async () => {
    const m = await createMerchantAccount(t.deps);
    const unknown = '0190a6f1-0000-7000-8000-000000000000';
    expect((await get(m, unknown)).json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await put(m, unknown, { active: false })).statusCode).toBe(404);
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/webhook-subscriptions/${unknown}/rotate-secret`,
          merchantAccountId: m,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('validates bodies (422), refuses other authentication kinds and ignores a secret sent by the client', async () => {
    const m = await createMerchantAccount(t.deps);
    const bad = [
      {},
      { url: '' },
      { url: BODY.url, authentication: { kind: 'bearer', username: 'u', password: 'p' } },
      { url: BODY.url, authentication: { kind: 'basic', username: 'a:b', password: 'p' } },
    ];
    for (const payload of bad) {
      const res = await t.request({ method: 'POST', url: '/webhook-subscriptions', payload, merchantAccountId: m });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
    }
    // Unknown fields are dropped: a secret chosen by the client is never used.
    const sub = await created(m, { url: BODY.url, secret: 'whsec_chosen_by_the_client_0000000000000000000' });
    expect(sub.secret).not.toBe('whsec_chosen_by_the_client_0000000000000000000');
    expect((await put(m, sub.id, { authentication: { kind: 'basic', username: 'only' } })).statusCode).toBe(422);
    expect((await get(m, 'not-a-uuid')).statusCode).toBe(422);
  });
});

describe('security', () => {
  const sub = { id: '' };
  beforeAll(async () => {
    sub.id = (await created('default')).id;
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.write',
    request: () => ({ method: 'POST', url: '/webhook-subscriptions', payload: BODY }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.read',
    request: () => ({ method: 'GET', url: '/webhook-subscriptions' }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.read',
    request: () => ({ method: 'GET', url: `/webhook-subscriptions/${sub.id}` }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.write',
    request: () => ({ method: 'PUT', url: `/webhook-subscriptions/${sub.id}`, payload: { active: true } }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.write',
    request: () => ({ method: 'POST', url: `/webhook-subscriptions/${sub.id}/rotate-secret` }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.write',
    request: () => ({ method: 'DELETE', url: `/webhook-subscriptions/${sub.id}` }),
  });

  it("answers 404 for another merchant account's subscription and leaves it as it was", async () => {
    const a = await createMerchantAccount(t.deps);
    const b = await createMerchantAccount(t.deps);
    const mine = await created(a);
    expect((await get(b, mine.id)).statusCode).toBe(404);
    expect((await put(b, mine.id, { url: 'https://evil.example.com/' })).statusCode).toBe(404);
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/webhook-subscriptions/${mine.id}/rotate-secret`,
          merchantAccountId: b,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `/webhook-subscriptions/${mine.id}`, merchantAccountId: b }))
        .statusCode,
    ).toBe(404);
    expect((await list(b)).json().items).toEqual([]);
    expect((await get(a, mine.id)).json()).toMatchObject({
      url: BODY.url,
      rotating: false,
      secret: `whsec_…${mine.secret.slice(-4)}`,
    });
    expect(await findSubscription(t.deps.db, b, mine.id)).toBeNull();
  });
});
