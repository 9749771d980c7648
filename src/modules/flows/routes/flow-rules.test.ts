import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const ROUTE = '/flows/card-transaction/actions/route-transaction';

const create = (merchantAccountId: string, payload: object, base = ROUTE) =>
  t.request({ method: 'POST', url: `${base}/rules`, merchantAccountId, payload });
const list = (merchantAccountId: string, query = '', base = ROUTE) =>
  t.request({ method: 'GET', url: `${base}/rules${query}`, merchantAccountId });
const ids = (res: { json(): { items: Array<{ id: string }> } }) => res.json().items.map((r) => r.id);

async function account() {
  const { merchantAccountId, paymentServiceId } = await merchantWithMockCard(t);
  return { m: merchantAccountId, ps: paymentServiceId };
}

const usd = (ps: string, extra: object = {}) => ({
  conditions: [{ field: 'currency', operator: 'equals', value: 'USD' }],
  outcome: { payment_service_ids: [ps] },
  ...extra,
});

describe('happy', () => {
  it('creates a rule: 201, the stored shape, position last, and an audit entry', async () => {
    const { m, ps } = await account();
    const res = await create(m, {
      description: 'Big EUR to A',
      conditions: [
        { field: 'amount', operator: 'range', value: { currency: 'EUR', min: 10000 } },
        { field: 'metadata', key: 'tier', operator: 'one_of', value: ['gold', 'platinum'] },
      ],
      outcome: {
        payment_service_ids: [ps],
        max_attempts: 2,
        retry_on_declines: ['do_not_honor', 'insufficient_funds'],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      type: 'flow-rule',
      id: expect.any(String),
      merchant_account_id: m,
      flow: 'card-transaction',
      action: 'route-transaction',
      position: 1,
      description: 'Big EUR to A',
      enabled: true,
      conditions: [
        { field: 'amount', operator: 'range', key: null, value: { currency: 'EUR', min: 10000 } },
        { field: 'metadata', operator: 'one_of', key: 'tier', value: ['gold', 'platinum'] },
      ],
      outcome: {
        payment_service_ids: [ps],
        max_attempts: 2,
        retry_on_declines: ['do_not_honor', 'insufficient_funds'],
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const second = await create(m, usd(ps));
    expect(second.json().position).toBe(2);
    const audit = await t.request({ method: 'GET', url: '/audit-logs?resource_type=flow-rule', merchantAccountId: m });
    expect(audit.json().items.length).toBeGreaterThanOrEqual(2);
  });

  it('lists in evaluation order with cursors, inserts at a position, moves, reorders and deletes keeping positions 1..n', async () => {
    const { m, ps } = await account();
    const a = (await create(m, usd(ps, { description: 'a' }))).json().id;
    const b = (await create(m, usd(ps, { description: 'b' }))).json().id;
    const c = (await create(m, usd(ps, { description: 'c', position: 1 }))).json().id;
    const page1 = await list(m, '?limit=2');
    expect(page1.statusCode, page1.body).toBe(200);
    expect(ids(page1)).toEqual([c, a]);
    const page2 = await list(m, `?limit=2&cursor=${encodeURIComponent(page1.json().next_cursor)}`);
    expect(ids(page2)).toEqual([b]);
    expect(page2.json().next_cursor).toBeNull();
    const back = await list(m, `?limit=2&cursor=${encodeURIComponent(page2.json().previous_cursor)}`);
    expect(ids(back)).toEqual([c, a]);

    const movedRes = await t.request({
      method: 'PUT',
      url: `${ROUTE}/rules/${b}`,
      merchantAccountId: m,
      payload: { position: 1, enabled: false },
    });
    expect(movedRes.statusCode, movedRes.body).toBe(200);
    expect(movedRes.json()).toMatchObject({ position: 1, enabled: false, description: 'b' });
    expect(ids(await list(m))).toEqual([b, c, a]);
    expect(ids(await list(m, '?enabled=false'))).toEqual([b]);

    const reordered = await t.request({
      method: 'PUT',
      url: `${ROUTE}/rule-order`,
      merchantAccountId: m,
      payload: { rule_ids: [a, b, c] },
    });
    expect(reordered.statusCode, reordered.body).toBe(200);
    expect(reordered.json().items.map((r: { id: string; position: number }) => [r.id, r.position])).toEqual([
      [a, 1],
      [b, 2],
      [c, 3],
    ]);

    const deleted = await t.request({ method: 'DELETE', url: `${ROUTE}/rules/${b}`, merchantAccountId: m });
    expect(deleted.statusCode).toBe(204);
    expect((await list(m)).json().items.map((r: { id: string; position: number }) => [r.id, r.position])).toEqual([
      [a, 1],
      [c, 2],
    ]);
  });

  it('updates partially: fields left out keep their value', async () => {
    const { m, ps } = await account();
    const rule = (await create(m, usd(ps, { description: 'keep me' }))).json();
    const res = await t.request({
      method: 'PUT',
      url: `${ROUTE}/rules/${rule.id}`,
      merchantAccountId: m,
      payload: { conditions: [] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      description: 'keep me',
      conditions: [],
      outcome: { payment_service_ids: [ps] },
      enabled: true,
    });
    const got = await t.request({ method: 'GET', url: `${ROUTE}/rules/${rule.id}`, merchantAccountId: m });
    expect(got.json()).toEqual(res.json());
  });

  it('takes the actions of each flow: decline-early, skip-3ds, select-payment-options', async () => {
    const { m } = await account();
    expect(
      (
        await create(
          m,
          {
            conditions: [{ field: 'country', operator: 'one_of', value: ['KP'] }],
            outcome: { reason: 'Sanctioned country' },
          },
          '/flows/card-transaction/actions/decline-early',
        )
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await create(
          m,
          { conditions: [{ field: 'amount', operator: 'range', value: { currency: 'USD', max: 3000 } }], outcome: {} },
          '/flows/card-transaction/actions/skip-3ds',
        )
      ).statusCode,
    ).toBe(201);
    const options = await create(
      m,
      { conditions: [], outcome: { payment_options: ['card', 'paypal'] } },
      '/flows/checkout/actions/select-payment-options',
    );
    expect(options.statusCode, options.body).toBe(201);
  });

  it('keeps creates racing on one list in distinct positions', async () => {
    const { m, ps } = await account();
    const results = await Promise.all(Array.from({ length: 6 }, () => create(m, usd(ps))));
    expect(results.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    const positions = (await list(m)).json().items.map((r: { position: number }) => r.position);
    expect(positions).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('errors', () => {
  const refused = async (res: { statusCode: number; json(): any; body: string }, pointer: string, message: RegExp) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message: expect.stringMatching(message),
    });
    expect(res.json().details[0]).toMatchObject({ pointer });
  };

  it('refuses a payment service of another merchant account, a deleted one, an empty list, bad weights', async () => {
    const { m, ps } = await account();
    const other = await account();
    const foreign = await create(m, usd(other.ps));
    expect(foreign.statusCode, foreign.body).toBe(404);
    expect(foreign.json()).toMatchObject({
      code: 'not_found',
      message: `The payment service ${other.ps} does not exist in this merchant account`,
      details: [{ pointer: '/outcome/payment_service_ids/0' }],
    });
    const second = (
      await t.request({
        method: 'POST',
        url: '/payment-services',
        merchantAccountId: m,
        payload: {
          display_name: 'Gone',
          payment_service_definition_id: 'mock-card',
          fields: [{ key: 'merchant_id', value: 'x' }],
          accepted_currencies: ['USD'],
          accepted_countries: ['US'],
        },
      })
    ).json().id;
    expect(
      (await t.request({ method: 'DELETE', url: `/payment-services/${second}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    await refused(await create(m, usd(second)), '/outcome/payment_service_ids/0', /has been deleted/);
    await refused(
      await create(m, { conditions: [], outcome: {} }),
      '/outcome/payment_service_ids',
      /at least one payment service/,
    );
    const empty = await create(m, { conditions: [], outcome: { payment_service_ids: [] } });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].loc).toEqual(['body', 'outcome', 'payment_service_ids']);
    await refused(
      await create(m, { conditions: [], outcome: { payment_service_ids: [ps], weights: [60] } }),
      '/outcome/weights',
      /sum to 100, they sum to 60/,
    );
    await refused(
      await create(m, { conditions: [], outcome: { payment_service_ids: [ps, ps] } }),
      '/outcome/payment_service_ids',
      /twice/,
    );
    await refused(
      await create(m, { conditions: [], outcome: { payment_service_ids: [ps], retry_on_declines: ['stolen_card'] } }),
      '/outcome/retry_on_declines',
      /hard decline/,
    );
  });

  it('refuses unknown condition fields (422), fields a flow cannot know, wrong operators and values (400)', async () => {
    const { m, ps } = await account();
    const unknown = await create(m, {
      conditions: [{ field: 'shoe_size', operator: 'equals', value: '42' }],
      outcome: { payment_service_ids: [ps] },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0].loc).toEqual(['body', 'conditions', 0, 'field']);
    await refused(
      await create(
        m,
        { conditions: [{ field: 'bin', operator: 'prefix', value: '4' }], outcome: { payment_options: ['card'] } },
        '/flows/checkout/actions/select-payment-options',
      ),
      '/conditions/0/field',
      /checkout flow does not know bin/,
    );
    await refused(
      await create(m, {
        conditions: [{ field: 'currency', operator: 'range', value: 'USD' }],
        outcome: { payment_service_ids: [ps] },
      }),
      '/conditions/0/operator',
      /takes the operators equals, one_of, not_one_of/,
    );
    await refused(
      await create(m, {
        conditions: [{ field: 'currency', operator: 'equals', value: 'XXQ' }],
        outcome: { payment_service_ids: [ps] },
      }),
      '/conditions/0/value',
      /not an ISO 4217/,
    );
    await refused(
      await create(m, {
        conditions: [{ field: 'amount', operator: 'range', value: { min: 1 } }],
        outcome: { payment_service_ids: [ps] },
      }),
      '/conditions/0/value/currency',
      /currency/,
    );
    await refused(
      await create(m, {
        conditions: [{ field: 'bin', operator: 'range', value: { min: '4000', max: '49999' } }],
        outcome: { payment_service_ids: [ps] },
      }),
      '/conditions/0/value/max',
      /same number of digits/,
    );
    await refused(
      await create(m, {
        conditions: [{ field: 'metadata', operator: 'equals', value: 'x' }],
        outcome: { payment_service_ids: [ps] },
      }),
      '/conditions/0/key',
      /metadata key/,
    );
  });

  it('refuses an action the flow does not have, and outcome fields of another action', async () => {
    const { m, ps } = await account();
    await refused(
      await create(m, usd(ps), '/flows/checkout/actions/route-transaction'),
      '/action',
      /checkout flow has no route-transaction action/,
    );
    await refused(
      await create(m, { conditions: [], outcome: { reason: 'x' } }),
      '/outcome/reason',
      /does not apply to route-transaction/,
    );
    const badFlow = await list(m, '', '/flows/nope/actions/route-transaction');
    expect(badFlow.statusCode).toBe(422);
  });

  it('refuses a reorder that misses, repeats or adds a rule', async () => {
    const { m, ps } = await account();
    const a = (await create(m, usd(ps))).json().id;
    const b = (await create(m, usd(ps))).json().id;
    const reorder = (rule_ids: string[]) =>
      t.request({ method: 'PUT', url: `${ROUTE}/rule-order`, merchantAccountId: m, payload: { rule_ids } });
    await refused(await reorder([a]), '/rule_ids', new RegExp(`missing: ${b}`));
    await refused(await reorder([a, a, b]), '/rule_ids', /twice/);
    const unknown = await reorder([a, b, UNKNOWN]);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toMatch(/is not a card-transaction route-transaction rule/);
  });

  it('answers 404 for an unknown rule and for a rule of another flow action', async () => {
    const { m, ps } = await account();
    const rule = (await create(m, usd(ps))).json().id;
    expect(
      (await t.request({ method: 'GET', url: `${ROUTE}/rules/${UNKNOWN}`, merchantAccountId: m })).statusCode,
    ).toBe(404);
    const elsewhere = await t.request({
      method: 'GET',
      url: `/flows/redirect-transaction/actions/route-transaction/rules/${rule}`,
      merchantAccountId: m,
    });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('security', () => {
  const body = { conditions: [], outcome: { payment_service_ids: [UNKNOWN] } };
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: `${ROUTE}/rules`, payload: body }),
      scope: 'flows.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, { request: () => ({ method: 'GET', url: `${ROUTE}/rules` }), scope: 'flows.read' }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `${ROUTE}/rules/${UNKNOWN}` }),
      scope: 'flows.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'PUT', url: `${ROUTE}/rules/${UNKNOWN}`, payload: {} }),
      scope: 'flows.write',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'DELETE', url: `${ROUTE}/rules/${UNKNOWN}` }),
      scope: 'flows.write',
    }));
  describe('reorder', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'PUT', url: `${ROUTE}/rule-order`, payload: { rule_ids: [UNKNOWN] } }),
      scope: 'flows.write',
    }));

  it("does not show, change or delete another merchant account's rules", async () => {
    const { m, ps } = await account();
    const other = await createMerchantAccount(t.deps);
    const rule = (await create(m, usd(ps))).json().id;
    expect(
      (await t.request({ method: 'GET', url: `${ROUTE}/rules/${rule}`, merchantAccountId: other })).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `${ROUTE}/rules/${rule}`,
          merchantAccountId: other,
          payload: { enabled: false },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `${ROUTE}/rules/${rule}`, merchantAccountId: other })).statusCode,
    ).toBe(404);
    expect((await list(other)).json().items).toEqual([]);
    const stored = await sql<{ enabled: boolean }>`SELECT enabled FROM flow_rules WHERE id = ${rule}`.execute(
      t.deps.db,
    );
    expect(stored.rows[0]!.enabled).toBe(true);
  });
});
