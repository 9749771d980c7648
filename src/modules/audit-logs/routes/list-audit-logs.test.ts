import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { genericPlan } from '../../../../test/helpers/generic-plan.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { recordStatements } from '../../../../test/helpers/statements.ts';
import { createTestKeyPair } from '../../../../test/helpers/tokens.ts';
import { uuidv7 } from '../../../lib/ids.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/** A merchant account created through the API: its audit trail starts with `created`. */
async function account(): Promise<string> {
  const id = `audit-${uuidv7().slice(-12)}`;
  expect(
    (await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'Audited' } }))
      .statusCode,
  ).toBe(201);
  return id;
}

const entries = async (merchantAccountId: string, query = '') => {
  const res = await t.request({ method: 'GET', url: `/audit-logs${query}`, merchantAccountId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('happy', () => {
  it('lists the entries of the merchant account, newest first, in the list envelope', async () => {
    const id = await account();
    await t.request({ method: 'PUT', url: `/merchant-accounts/${id}`, payload: { display_name: 'Renamed' } });
    const body = await entries(id);
    expect(body).toMatchObject({ limit: 20, next_cursor: null, previous_cursor: null });
    expect(body.items).toHaveLength(2);
    const [updated, created] = body.items;
    expect(updated).toMatchObject({
      type: 'audit-log',
      merchant_account_id: id,
      action: 'updated',
      resource: { type: 'merchant-account', id, name: 'Renamed' },
    });
    expect(created).toMatchObject({ action: 'created', resource: { name: 'Audited' } });
    expect(updated.user).toEqual({
      type: 'user',
      id: t.keys.id,
      name: 'API key test',
      email_address: null,
      is_staff: false,
      status: 'active',
    });
    expect(Date.parse(updated.timestamp)).toBeGreaterThanOrEqual(Date.parse(created.timestamp));
  });

  it('filters by action, user and resource type, and pages', async () => {
    const id = await account();
    const other = await createTestKeyPair(t.deps);
    for (let i = 0; i < 3; i++)
      await t.request({
        method: 'PUT',
        url: `/merchant-accounts/${id}`,
        payload: { display_name: `n${i}` },
        token: await other.token(),
      });
    expect((await entries(id, '?action=created')).items).toHaveLength(1);
    expect((await entries(id, '?action=updated')).items).toHaveLength(3);
    expect((await entries(id, `?user_id=${other.id}`)).items).toHaveLength(3);
    expect((await entries(id, '?resource_type=merchant-account')).items).toHaveLength(4);
    expect((await entries(id, '?resource_type=transaction')).items).toHaveLength(0);
    const first = await entries(id, '?limit=3');
    expect(first.items).toHaveLength(3);
    const second = await entries(id, `?limit=3&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(second.items.map((e: { action: string }) => e.action)).toEqual(['created']);
    expect(second.next_cursor).toBeNull();
  });
});

describe('errors', () => {
  it('answers 422 for a bad action or user_id', async () => {
    const action = await t.request({ method: 'GET', url: '/audit-logs?action=exploded' });
    expect(action.statusCode).toBe(422);
    expect(action.json().detail[0]).toMatchObject({ loc: ['query', 'action'], type: 'enum' });
    const user = await t.request({ method: 'GET', url: '/audit-logs?user_id=nope' });
    expect(user.json().detail[0]).toMatchObject({ loc: ['query', 'user_id'], type: 'uuid_parsing' });
  });

  it('refuses a cursor made under other filters', async () => {
    const id = await account();
    await t.request({ method: 'PUT', url: `/merchant-accounts/${id}`, payload: { display_name: 'x' } });
    const page = await entries(id, '?limit=1');
    const res = await t.request({
      method: 'GET',
      url: `/audit-logs?limit=1&action=created&cursor=${encodeURIComponent(page.next_cursor)}`,
      merchantAccountId: id,
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: () => ({ method: 'GET', url: '/audit-logs' }), scope: 'audit-logs.read' });

  it('never shows the entries of another merchant account', async () => {
    const id = await account();
    const other = await account();
    expect(
      (await entries(other)).items.every((e: { merchant_account_id: string }) => e.merchant_account_id === other),
    ).toBe(true);
    const limited = await createTestKeyPair(t.deps, other);
    const res = await t.request({
      method: 'GET',
      url: '/audit-logs',
      token: await limited.token(),
      merchantAccountId: id,
    });
    expect(res.statusCode).toBe(403);
  });

  it('writes no entry when the change fails', async () => {
    const id = await account();
    const before = (await entries(id)).items.length;
    expect(
      (await t.request({ method: 'PUT', url: `/merchant-accounts/${id}`, payload: { loon_client_key: 'only-one' } }))
        .statusCode,
    ).toBe(400);
    expect((await entries(id)).items).toHaveLength(before);
  });

  it.skipIf(!usesPostgres())(
    'reads the first and the next page of a large log through the index: the plans of the statements the server sends',
    async () => {
      const id = await account();
      await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
      SELECT ${id}, gen_random_uuid(), (ARRAY['created','updated','deleted'])[1 + g % 3], 'transaction', g::text, 'tx ' || g, 'bulk',
             timestamptz '2024-01-01' + g * interval '1 second'
      FROM generate_series(1, 200000) AS g`.execute(t.deps.db);
      await sql`ANALYZE audit_logs`.execute(t.deps.db);
      const recorder = recordStatements(t.deps.db);
      const started = performance.now();
      const first = await entries(id, '?action=deleted&limit=100');
      const next = await entries(id, `?action=deleted&limit=100&cursor=${first.next_cursor}`);
      const elapsed = performance.now() - started;
      recorder.stop();
      expect(first.items).toHaveLength(100);
      expect(next.items).toHaveLength(100);
      expect(elapsed).toBeLessThan(1000);
      // The list's own statements, as compiled (the page, then the page with its probe of the cursor).
      const lists = recorder.statements.filter((q) => /from "audit_logs"/.test(q.sql));
      expect(lists).toHaveLength(2);
      for (const query of lists) {
        // With its parameters (a custom plan), and as the prepared statement it becomes once hot.
        const custom = (
          await t.deps.db.executeQuery<{ 'QUERY PLAN': string }>(
            CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
          )
        ).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        for (const plan of [custom, await genericPlan(t.deps.db, query)]) {
          expect(plan, query.sql).toContain('audit_logs_action_idx');
          expect(plan, query.sql).not.toContain('Seq Scan');
        }
      }
    },
  );
});
