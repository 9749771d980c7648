import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * GET /transactions reads two branches (decision 0154): the answered transactions from the partial
 * filter indexes, and those awaiting their connector's answer (`intent_outcome` null) from
 * transactions_in_flight_idx. A transaction held at the provider is listed once, in its place,
 * under each filter it matches, and once again after its answer. Runs on PGlite and on PostgreSQL.
 */

type Item = { id: string; status: string; intent_outcome?: string; updated_at: string };
type Page = { items: Item[]; next_cursor: string | null; previous_cursor: string | null };

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function list(merchantAccountId: string, query: string): Promise<Page> {
  const res = await t.request({ method: 'GET', url: `/transactions?${query}`, merchantAccountId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

async function fetchOne(merchantAccountId: string, id: string) {
  const res = await t.request({ method: 'GET', url: `/transactions/${id}`, merchantAccountId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Item;
}

/** Every page of `query` at `limit`, forwards, then backwards from the last: ids in list order, each way. */
async function walk(merchantAccountId: string, query: string, limit: number) {
  const at = (cursor: string | null) =>
    `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const forward: Page[] = [await list(merchantAccountId, at(null))];
  while (forward.at(-1)!.next_cursor) forward.push(await list(merchantAccountId, at(forward.at(-1)!.next_cursor)));
  const backward: Page[] = [forward.at(-1)!];
  while (backward.at(-1)!.previous_cursor)
    backward.push(await list(merchantAccountId, at(backward.at(-1)!.previous_cursor)));
  return {
    forward: forward.flatMap((page) => page.items.map((item) => item.id)),
    backward: backward.reverse().flatMap((page) => page.items.map((item) => item.id)),
    pages: forward.length,
  };
}

/** Holds the mock connector's next authorization at the provider until `release`. */
function holdAuthorize() {
  const connector = t.deps.connectors.get('mock-card');
  const original = connector.authorize.bind(connector);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  connector.authorize = async (request) => {
    connector.authorize = original;
    await released;
    return original(request);
  };
  return { release, restore: () => (connector.authorize = original) };
}

async function inserted(merchantAccountId: string, externalIdentifier: string) {
  for (let i = 0; i < 200; i++) {
    const row = await t.deps.db
      .selectFrom('transactions')
      .select(['id', 'intent_outcome'])
      .where('merchant_account_id', '=', merchantAccountId)
      .where('external_identifier', '=', externalIdentifier)
      .executeTakeFirst();
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the held transaction was never inserted');
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('happy', () => {
  it('lists a transaction held at the provider once, in its place, under each filter it matches, and once after its answer', async () => {
    const { merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t);
    const older = [await authorized(t, m, { amount: 1001 }), await authorized(t, m, { amount: 1002 })];
    await pause();
    const hold = holdAuthorize();
    try {
      const creating = createTransaction(t, m, {
        amount: 1003,
        external_identifier: 'held-1',
        metadata: { held: 'yes' },
      });
      const row = await inserted(m, 'held-1');
      // Stored without an outcome: out of the filter indexes while the call is at the provider.
      expect(row.intent_outcome).toBeNull();
      await pause();
      const newer = await authorized(t, m, { amount: 1004 });
      const order = [newer.id, row.id, older[1].id, older[0].id];

      const all = await list(m, 'limit=100');
      expect(all.items.map((item) => item.id)).toEqual(order);
      expect(all.items[1]).toMatchObject({ id: row.id, status: 'processing' });
      expect(await fetchOne(m, row.id)).toMatchObject({ status: 'processing', intent_outcome: 'pending' });
      const fingerprint = (newer as { payment_method: { fingerprint: string } }).payment_method.fingerprint;
      const filters: Array<[string, string[]]> = [
        ['status=processing', [row.id]],
        ['status=processing&status=authorization_succeeded', order],
        ['external_identifier=held-1', [row.id]],
        [`metadata=${encodeURIComponent('{"held":"yes"}')}`, [row.id]],
        [`payment_service_id=${paymentServiceId}`, order],
        [`payment_method_fingerprint=${encodeURIComponent(fingerprint)}`, order],
        ['payment_method_bin=411111', order],
        ['payment_method_label=1111', order],
        ['amount_gte=1002&amount_lte=1003', [row.id, older[1].id]],
        [`created_at_gte=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`, order],
        ['search=held-1', [row.id]],
      ];
      for (const [query, ids] of filters) {
        expect(
          (await list(m, `limit=100&${query}`)).items.map((item) => item.id),
          query,
        ).toEqual(ids);
      }
      for (const limit of [1, 2, 3]) {
        const pages = await walk(m, 'method=card', limit);
        expect(pages.forward, `limit ${limit}`).toEqual(order);
        expect(pages.backward, `limit ${limit}`).toEqual(order);
      }

      hold.release();
      const created = await creating;
      expect(created.statusCode, created.body).toBe(201);
      // Answered: in the filter indexes, listed once, newest now.
      const after = await list(m, 'limit=100');
      expect(after.items.map((item) => item.id)).toEqual([row.id, newer.id, older[1].id, older[0].id]);
      expect(after.items[0]).toMatchObject({ status: 'authorization_succeeded' });
      expect(await fetchOne(m, row.id)).toMatchObject({ intent_outcome: 'succeeded' });
      expect((await list(m, 'limit=100&external_identifier=held-1')).items.map((item) => item.id)).toEqual([row.id]);
      expect((await list(m, 'limit=100&status=processing')).items).toEqual([]);
    } finally {
      hold.release();
      hold.restore();
    }
  });

  it('pages the two branches as one list (property: any mix of in-flight and answered rows, any page size)', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await authorized(t, m, { amount: 100 + i })).id);
    const base = Date.now() - 3_600_000;
    const rowArb = fc.record({ inFlight: fc.boolean(), minute: fc.integer({ min: 0, max: 4 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: ids.length, maxLength: ids.length }),
        fc.integer({ min: 1, max: 11 }),
        fc.constantFrom('', 'amount_gte=105', 'status=processing'),
        async (rows, limit, query) => {
          const stored = rows.map((r, i) => ({
            id: ids[i]!,
            // Few distinct times: ties on updated_at are ordered by id, across the branches too.
            updated_at: new Date(base + r.minute * 60_000),
            intent_outcome: r.inFlight ? null : ('succeeded' as const),
            status: r.inFlight ? ('processing' as const) : ('authorization_succeeded' as const),
            amount: 100 + i,
          }));
          for (const row of stored)
            await t.deps.db
              .updateTable('transactions')
              .set({ updated_at: row.updated_at, intent_outcome: row.intent_outcome, status: row.status })
              .where('merchant_account_id', '=', m)
              .where('id', '=', row.id)
              .execute();
          const expected = stored
            .filter((row) =>
              query === 'amount_gte=105'
                ? row.amount >= 105
                : query === 'status=processing'
                  ? row.status === 'processing'
                  : true,
            )
            .sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .map((row) => row.id);
          const pages = await walk(m, query || 'method=card', limit);
          expect(pages.forward).toEqual(expected);
          expect(pages.backward).toEqual(expected);
          expect(pages.pages).toBe(Math.max(1, Math.ceil(expected.length / limit)));
        },
      ),
      { numRuns: 25 },
    );
  });
});
