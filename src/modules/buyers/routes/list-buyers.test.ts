import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { buyersQuery } from '../buyers.repo.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

type Buyer = { id: string; display_name: string | null; external_identifier: string | null };

async function addBuyer(account: string, body: Record<string, unknown>): Promise<Buyer> {
  const res = await t.request({ method: 'POST', url: '/buyers', payload: body, merchantAccountId: account });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function list(account: string, query = '') {
  const res = await t.request({ method: 'GET', url: `/buyers${query}`, merchantAccountId: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: Buyer[]; limit: number; next_cursor: string | null; previous_cursor: string | null };
}

const names = (page: { items: Buyer[] }) => page.items.map((b) => b.display_name);

describe('happy', () => {
  it('lists the buyers of the account newest first, and pages both ways', async () => {
    const account = await createMerchantAccount(t.deps);
    for (let i = 1; i <= 5; i++) await addBuyer(account, { display_name: `b${i}` });
    const all = await list(account);
    expect(all).toMatchObject({ limit: 20, next_cursor: null, previous_cursor: null });
    expect(names(all)).toEqual(['b5', 'b4', 'b3', 'b2', 'b1']);

    const first = await list(account, '?limit=2');
    expect(names(first)).toEqual(['b5', 'b4']);
    expect(first.previous_cursor).toBeNull();
    const second = await list(account, `?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(names(second)).toEqual(['b3', 'b2']);
    const back = await list(account, `?limit=2&cursor=${encodeURIComponent(second.previous_cursor!)}`);
    expect(names(back)).toEqual(['b5', 'b4']);
  });

  it('searches a case-insensitive prefix of display_name or external_identifier', async () => {
    const account = await createMerchantAccount(t.deps);
    await addBuyer(account, { display_name: 'Alice Martin', external_identifier: 'cust-001' });
    await addBuyer(account, { display_name: 'Bob Alison', external_identifier: 'ALI-77' });
    await addBuyer(account, { display_name: 'Carol', external_identifier: 'cust-002' });
    await addBuyer(account, { display_name: null, external_identifier: null });
    expect(names(await list(account, '?search=ali'))).toEqual(['Bob Alison', 'Alice Martin']);
    expect(names(await list(account, '?search=ALICE%20M'))).toEqual(['Alice Martin']);
    expect(names(await list(account, '?search=CUST-'))).toEqual(['Carol', 'Alice Martin']);
    // A prefix, not a substring.
    expect(names(await list(account, '?search=martin'))).toEqual([]);
    expect(names(await list(account, '?search='))).toHaveLength(4);
    // Accented capitals fold too (lower() follows the database's ctype; UTF-8 on both test databases).
    await addBuyer(account, { display_name: 'Élodie' });
    expect(names(await list(account, `?search=${encodeURIComponent('élo')}`))).toEqual(['Élodie']);
  });

  it('takes % and _ in a search literally', async () => {
    const account = await createMerchantAccount(t.deps);
    await addBuyer(account, { display_name: '100% cotton' });
    await addBuyer(account, { display_name: '100 x' });
    await addBuyer(account, { display_name: 'a_b' });
    await addBuyer(account, { display_name: 'axb' });
    await addBuyer(account, { display_name: 'back\\slash' });
    expect(names(await list(account, `?search=${encodeURIComponent('100%')}`))).toEqual(['100% cotton']);
    expect(names(await list(account, '?search=a_'))).toEqual(['a_b']);
    expect(names(await list(account, `?search=${encodeURIComponent('back\\')}`))).toEqual(['back\\slash']);
  });

  it('filters by exact external_identifier, alone or with a search', async () => {
    const account = await createMerchantAccount(t.deps);
    const ref = await addBuyer(account, { display_name: 'Dora', external_identifier: 'Ref-9' });
    await addBuyer(account, { display_name: 'Dora Two', external_identifier: 'Ref-90' });
    expect((await list(account, '?external_identifier=Ref-9')).items.map((b) => b.id)).toEqual([ref.id]);
    expect((await list(account, '?external_identifier=ref-9')).items).toEqual([]);
    expect((await list(account, '?external_identifier=Ref-9&search=dora')).items.map((b) => b.id)).toEqual([ref.id]);
    expect((await list(account, '?external_identifier=Ref-9&search=x')).items).toEqual([]);
  });
});

describe('errors', () => {
  it('answers 422 for a limit out of range and a search too long', async () => {
    for (const query of ['?limit=0', '?limit=101', `?search=${'x'.repeat(201)}`]) {
      const res = await t.request({ method: 'GET', url: `/buyers${query}` });
      expect(res.statusCode, query).toBe(422);
      expect(res.json().detail[0].loc[0]).toBe('query');
    }
  });

  it('refuses a cursor made under another search or filter', async () => {
    const account = await createMerchantAccount(t.deps);
    for (let i = 0; i < 3; i++)
      await addBuyer(account, { display_name: `same ${i}`, external_identifier: `same-${i}` });
    const page = await list(account, '?limit=1&search=same');
    for (const query of ['?limit=1', '?limit=1&search=sam', '?limit=1&search=same&external_identifier=same-1']) {
      const res = await t.request({
        method: 'GET',
        url: `/buyers${query}&cursor=${encodeURIComponent(page.next_cursor!)}`,
        merchantAccountId: account,
      });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details[0].pointer).toBe('/cursor');
    }
    expect(names(await list(account, `?limit=1&search=same&cursor=${encodeURIComponent(page.next_cursor!)}`))).toEqual([
      'same 1',
    ]);
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: () => ({ method: 'GET', url: '/buyers' }), scope: 'buyers.read' });

  it('never lists the buyers of another merchant account', async () => {
    const [mine, theirs] = [await createMerchantAccount(t.deps), await createMerchantAccount(t.deps)];
    const own = await addBuyer(mine, { display_name: 'Shared name', external_identifier: 'shared' });
    await addBuyer(theirs, { display_name: 'Shared name', external_identifier: 'shared' });
    expect((await list(mine, '?search=shared')).items.map((b) => b.id)).toEqual([own.id]);
    expect((await list(mine, '?external_identifier=shared')).items.map((b) => b.id)).toEqual([own.id]);
  });

  it.skipIf(!usesPostgres())(
    'answers search and external_identifier from the indexes (PostgreSQL EXPLAIN)',
    async () => {
      const account = await createMerchantAccount(t.deps);
      const noise = await createMerchantAccount(t.deps);
      for (const id of [account, noise]) {
        await sql`INSERT INTO buyers (merchant_account_id, id, display_name, external_identifier)
        SELECT ${id}, gen_random_uuid(), 'Customer ' || n, 'ref-' || n FROM generate_series(1, 5000) AS n`.execute(
          t.deps.db,
        );
      }
      await addBuyer(account, { display_name: 'Zeta Jones', external_identifier: `z-${uuidv7()}` });
      await sql`ANALYZE buyers`.execute(t.deps.db);

      const plan = async (filter: Parameters<typeof buyersQuery>[2]) => {
        // The page query keysetPage runs: the filter, its window position, newest first, limit + 1.
        const query = buyersQuery(t.deps.db, account, filter)
          .select(sql<number>`row_number() over (order by created_at desc, id desc)`.as('_pos'))
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(21);
        const rows = await query.explain<{ 'QUERY PLAN': string }>();
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      };
      const search = await plan({ search: 'zeta' });
      expect(search).toContain('buyers_display_name_search_idx');
      expect(search).toContain('buyers_external_identifier_search_idx');
      expect(search).not.toContain('Seq Scan');
      const exact = await plan({ externalIdentifier: 'ref-42' });
      expect(exact).toContain('buyers_external_identifier_key');
      expect(exact).not.toContain('Seq Scan');
      expect(names(await list(account, '?search=ZETA'))).toEqual(['Zeta Jones']);
    },
  );
});
