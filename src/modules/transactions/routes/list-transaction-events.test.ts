import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { insertEvents } from '../transactions.repo.ts';

/**
 * GET /transactions/{id}/events reads the history (transaction_events, a view over one row per write, keyed
 * (merchant_account_id, transaction_id, created_at, id): decision 0150) newest first, ties in time by id,
 * and keyset pages that join up in both directions.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

interface EventItem {
  type: string;
  id: string;
  name: string;
  context: Record<string, unknown>;
  created_at: string;
}

const get = async (m: string, url: string) => {
  const res = await t.request({ method: 'GET', url, merchantAccountId: m });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: EventItem[]; next_cursor: string | null; previous_cursor: string | null };
};

/** A card authorization, then five events of one write (one timestamp) and one older event. */
async function history(m: string) {
  const txn = await authorized(t, m);
  const at = new Date(Date.now() + 60_000);
  const ids = Array.from({ length: 5 }, () => uuidv7());
  await insertEvents(
    t.deps.db,
    ids.map((id, i) => ({
      merchant_account_id: m,
      id,
      transaction_id: txn.id,
      name: `test-event-${i}`,
      context: JSON.stringify({ i }),
      created_at: at,
    })),
  );
  await insertEvents(t.deps.db, [
    {
      merchant_account_id: m,
      id: uuidv7(),
      transaction_id: txn.id,
      name: 'test-event-old',
      context: JSON.stringify({}),
      created_at: new Date(Date.now() - 86_400_000),
    },
  ]);
  return txn;
}

describe('happy', () => {
  it('lists the history newest first, a write’s events by id, with their names and contexts', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await history(m);
    const { items } = await get(m, `/transactions/${txn.id}/events?limit=100`);
    const order = [...items].sort((a, b) =>
      a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
    );
    expect(items.map((e) => e.id)).toEqual(order.map((e) => e.id));
    expect(items.slice(0, 5).map((e) => [e.name, e.context])).toEqual(
      [4, 3, 2, 1, 0].map((i) => [`test-event-${i}`, { i }]),
    );
    expect(items.at(-1)).toMatchObject({ type: 'transaction-event', name: 'test-event-old', context: {} });
    // The authorization's own history sits between them.
    expect(items.slice(5, -1).map((e) => e.name)).toContain('transaction-updated-status');
  });

  it('pages through it with next and previous cursors, across a timestamp shared by several events', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await history(m);
    const all = (await get(m, `/transactions/${txn.id}/events?limit=100`)).items.map((e) => e.id);
    const pages: string[][] = [];
    let page = await get(m, `/transactions/${txn.id}/events?limit=2`);
    pages.push(page.items.map((e) => e.id));
    expect(page.previous_cursor).toBeNull();
    while (page.next_cursor) {
      page = await get(m, `/transactions/${txn.id}/events?limit=2&cursor=${page.next_cursor}`);
      pages.push(page.items.map((e) => e.id));
    }
    expect(pages.flat()).toEqual(all);
    // Back from the last page, one page at a time, to the first.
    for (let i = pages.length - 2; i >= 0; i--) {
      page = await get(m, `/transactions/${txn.id}/events?limit=2&cursor=${page.previous_cursor}`);
      expect(page.items.map((e) => e.id)).toEqual(pages[i]);
    }
    expect(page.previous_cursor).toBeNull();
  });
});

describe('errors', () => {
  it('answers 404 for a transaction of another merchant account', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    const res = await t.request({ method: 'GET', url: `/transactions/${txn.id}/events`, merchantAccountId: other });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('transaction-updated-status');
  });
});

describe('security', () => {
  let m: string;
  let txnId: string;
  beforeAll(async () => {
    ({ merchantAccountId: m } = await merchantWithMockCard(t));
    txnId = (await authorized(t, m)).id;
  });

  runScopeTests(() => t, {
    request: () => ({ method: 'GET', url: `/transactions/${txnId}/events`, merchantAccountId: m }),
    scope: 'transactions.read',
  });
});
