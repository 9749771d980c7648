import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { merchantWithMockCard, postPayout } from '../../../../test/helpers/payouts.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';

let t: TestApp;
let merchant: string;
let service: string;
const made: Array<{
  id: string;
  status: string;
  external_identifier: string | null;
  payment_service_payout_id: string | null;
  created_at: string;
}> = [];
beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: merchant, paymentServiceId: service } = await merchantWithMockCard(t));
  // Oldest first: succeeded, declined, pending, failed, succeeded.
  for (const [amount, ext] of [
    [1000, 'a'],
    [3005, 'b'],
    [3077, 'c'],
    [3096, null],
    [1200, 'a'],
  ] as const) {
    const res = await postPayout(t, merchant, service, { amount, ...(ext ? { external_identifier: ext } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    made.push(res.json());
  }
});
afterAll(async () => t.close());

const list = async (query = '', merchantAccountId = merchant) => {
  const res = await t.request({ method: 'GET', url: `/payouts${query}`, merchantAccountId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const ids = (page: { items: Array<{ id: string }> }) => page.items.map((p) => p.id);
const newestFirst = () => [...made].reverse().map((p) => p.id);

describe('happy', () => {
  it('lists the payouts newest first in cursor pages', async () => {
    const first = await list('?limit=2');
    expect(first).toMatchObject({ limit: 2, previous_cursor: null, next_cursor: expect.any(String) });
    expect(ids(first)).toEqual(newestFirst().slice(0, 2));
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(ids(second)).toEqual(newestFirst().slice(2, 4));
    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.next_cursor)}`);
    expect(ids(third)).toEqual(newestFirst().slice(4));
    expect(third.next_cursor).toBeNull();
    const back = await list(`?limit=2&cursor=${encodeURIComponent(second.previous_cursor)}`);
    expect(ids(back)).toEqual(newestFirst().slice(0, 2));
  });

  it('filters by status (repeated key), external_identifier and payment_service_payout_id', async () => {
    expect(ids(await list('?status=declined'))).toEqual([made[1]!.id]);
    expect(ids(await list('?status=failed&status=pending'))).toEqual([made[3]!.id, made[2]!.id]);
    expect(ids(await list('?external_identifier=a'))).toEqual([made[4]!.id, made[0]!.id]);
    expect(ids(await list(`?payment_service_payout_id=${made[2]!.payment_service_payout_id}`))).toEqual([made[2]!.id]);
    expect(ids(await list('?external_identifier=a&status=declined'))).toEqual([]);
  });

  it('filters by created and updated ranges', async () => {
    const at = encodeURIComponent(made[2]!.created_at);
    expect(ids(await list(`?created_at_gte=${at}`))).toEqual(newestFirst().slice(0, 3));
    expect(ids(await list(`?created_at_lte=${at}`))).toEqual(newestFirst().slice(2));
    expect(
      ids(await list(`?updated_at_gte=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)),
    ).toEqual([]);
    expect(
      ids(await list(`?updated_at_lte=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)),
    ).toHaveLength(5);
  });

  it('reads one payout', async () => {
    const res = await t.request({ method: 'GET', url: `/payouts/${made[1]!.id}`, merchantAccountId: merchant });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(made[1]);
  });
});

describe('errors', () => {
  it('answers 422 for bad filters and 400 for a cursor of other filters', async () => {
    for (const [query, loc] of [
      ['status=lost', ['query', 'status', 0]],
      ['created_at_gte=yesterday', ['query', 'created_at_gte']],
      ['limit=101', ['query', 'limit']],
      [`external_identifier=${'x'.repeat(201)}`, ['query', 'external_identifier']],
    ] as const) {
      const res = await t.request({ method: 'GET', url: `/payouts?${query}`, merchantAccountId: merchant });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    const cursor = (await list('?limit=1&status=succeeded')).next_cursor;
    const res = await t.request({
      method: 'GET',
      url: `/payouts?limit=1&status=declined&cursor=${encodeURIComponent(cursor)}`,
      merchantAccountId: merchant,
    });
    expect(res.statusCode).toBe(400);
  });

  it('answers 404 for an unknown payout and 422 for an id that is not a uuid', async () => {
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/payouts/018f0000-0000-7000-8000-000000000000',
          merchantAccountId: merchant,
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'GET', url: '/payouts/nope', merchantAccountId: merchant })).statusCode).toBe(
      422,
    );
  });
});

describe('security', () => {
  describe('listPayouts', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/payouts', merchantAccountId: merchant }),
      scope: 'payouts.read',
    }));
  describe('getPayout', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `/payouts/${made[0]!.id}`, merchantAccountId: merchant }),
      scope: 'payouts.read',
    }));

  it("never shows another merchant account's payouts", async () => {
    const other = await merchantWithMockCard(t);
    expect((await list('', other.merchantAccountId)).items).toEqual([]);
    const res = await t.request({
      method: 'GET',
      url: `/payouts/${made[0]!.id}`,
      merchantAccountId: other.merchantAccountId,
    });
    expect(res.json()).toMatchObject({ code: 'not_found', status: 404 });
  });
});
