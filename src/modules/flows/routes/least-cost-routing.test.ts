import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { card } from '../../../../test/helpers/transactions.ts';
import { expectedCost, type FeeEntry } from '../../payment-services/fee-schedule.ts';
import { chooseByLeastCost, type LeastCostCandidate } from '../../routing-stats/least-cost.ts';

/** Least-cost routing through the API: fee schedules, a least_cost rule, the trace, the dry run, refusals. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ROUTE_RULES = '/flows/card-transaction/actions/route-transaction/rules';
const KEY = 'scheme=visa,currency=USD,country=US,card_type=-,issuer_country=-';
// 1000 USD cents: cheap 1000 × 1.5 % + 10 = 25; dear 1000 × 2.9 % + 30 = 59.
const CHEAP: Array<Partial<FeeEntry>> = [{ percent: '1.5', fixed_fee: { amount: 10, currency: 'USD' } }];
const DEAR: Array<Partial<FeeEntry>> = [
  { percent: '2.9', fixed_fee: { amount: 30, currency: 'USD' } },
  { scheme: 'visa', card_type: 'debit', percent: '0.5' },
];

async function service(m: string, name: string, fees: object[] | null) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: name }],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  if (fees) {
    const put = await t.request({
      method: 'PUT',
      url: `/payment-services/${id}/fee-schedule`,
      merchantAccountId: m,
      payload: { entries: fees },
    });
    expect(put.statusCode, put.body).toBe(200);
  }
  return id;
}

async function leastCostRule(m: string, ids: string[], extra: object = {}) {
  const res = await t.request({
    method: 'POST',
    url: ROUTE_RULES,
    merchantAccountId: m,
    payload: { conditions: [], outcome: { payment_service_ids: ids, strategy: 'least_cost', ...extra } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function pay(m: string, body: object = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card(), ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; status: string; payment_service: { id: string } };
}

const routeAction = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m })).json().items[0];

const attempts = async (id: string) =>
  (
    await sql<{ payment_service_id: string }>`SELECT payment_service_id FROM transaction_attempts
      WHERE transaction_id = ${id} AND operation = 'authorize' ORDER BY id`.execute(t.deps.db)
  ).rows.map((r) => r.payment_service_id);

async function dryRun(m: string, paymentMethod: object = { method: 'card', bin: '411111' }) {
  const res = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/dry-run',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: paymentMethod },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
}

describe('happy', () => {
  it('sends traffic to the cheaper service while its rate is within the margin, then to the better one', async () => {
    const m = await createMerchantAccount(t.deps);
    const dear = await service(m, 'dear', DEAR);
    const cheap = await service(m, 'cheap', CHEAP);
    const ruleId = await leastCostRule(m, [dear, cheap], { min_samples: 3 });
    const first = await pay(m);
    expect(first).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: cheap } });
    expect(await attempts(first.id)).toEqual([cheap]);
    const action = await routeAction(m, first.id);
    expect(action).toMatchObject({
      id: 'route-transaction',
      rule_id: ruleId,
      outcome: { selected: cheap, eligible: [cheap, dear], order: [dear, cheap], strategy: 'least_cost' },
    });
    expect(action.outcome.least_cost).toEqual({
      cost_margin_percent: 0.5,
      min_samples: 3,
      window_minutes: 60,
      best_rate: null,
      chosen: cheap,
      reason:
        'lowest expected cost 25 USD of the 2 services within the margin (no candidate has a known rate yet; its rate unknown: fewer than 3 outcomes, within the margin until measured)',
      candidates: [
        {
          payment_service_id: dear,
          expected_cost: { amount: 59, exact: '59', currency: 'USD' },
          cost_unknown_because: null,
          fee_entry_index: 0,
          dimension_key: null,
          successes: 0,
          failures: 0,
          samples: 0,
          approval_rate: 0.5,
          recent_errors: 0,
          recent_calls: 0,
          availability: 1,
          estimated_rate: 0.5,
          rate_known: false,
          within_margin: true,
        },
        expect.objectContaining({
          payment_service_id: cheap,
          expected_cost: { amount: 25, exact: '25', currency: 'USD' },
        }),
      ],
    });
    for (let i = 0; i < 2; i++) expect(await attempts((await pay(m)).id)).toEqual([cheap]);

    // The cheap service starts declining (do_not_honor, a soft decline): failover keeps every payment
    // whole, and its approval rate falls.
    const broken = await t.request({
      method: 'PUT',
      url: `/payment-services/${cheap}`,
      merchantAccountId: m,
      payload: { fields: [{ key: 'simulate_outcome', value: 'decline' }] },
    });
    expect(broken.statusCode, broken.body).toBe(200);
    for (let i = 0; i < 3; i++) {
      const txn = await pay(m);
      expect(txn).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: dear } });
      // cheap 3/0, 3/1, 3/2: still the best known rate (dear has fewer than min_samples outcomes).
      expect(await attempts(txn.id)).toEqual([cheap, dear]);
    }
    // cheap 3/3 (0.5), dear 3/0 (0.8): cheap is 30 points below the best, outside the 0.5 margin.
    const moved = await pay(m);
    expect(await attempts(moved.id)).toEqual([dear]);
    const trace = (await routeAction(m, moved.id)).outcome;
    expect(trace).toMatchObject({ selected: dear, eligible: [dear, cheap] });
    expect(trace.least_cost).toMatchObject({
      best_rate: 0.8,
      chosen: dear,
      reason: `the only service within the margin, expected cost 59 USD (best rate 0.8, margin 0.5 points; its rate 0.8 from 3 outcomes at ${KEY})`,
    });
    expect(
      trace.least_cost.candidates.map((c: LeastCostCandidate) => [
        c.payment_service_id,
        c.successes,
        c.failures,
        c.within_margin,
      ]),
    ).toEqual([
      [dear, 3, 0, true],
      [cheap, 3, 3, false],
    ]);
    // Reproducible from the trace: the fee schedules, and the counts it shows.
    const candidates = trace.least_cost.candidates as LeastCostCandidate[];
    const facts = { scheme: 'visa', cardType: null, currency: 'USD', country: 'US' };
    const again = chooseByLeastCost(
      [
        { id: dear, cost: expectedCost(DEAR.map(entry), facts, 1000) },
        { id: cheap, cost: expectedCost(CHEAP.map(entry), facts, 1000) },
      ],
      [KEY],
      (id, key) => {
        const c = candidates.find((x) => x.payment_service_id === id && x.dimension_key === key);
        return c ? { successes: c.successes, failures: c.failures, errors: 0 } : undefined;
      },
      (id, key) => {
        const c = candidates.find((x) => x.payment_service_id === id)!;
        return key === '*'
          ? { successes: c.recent_calls - c.recent_errors, failures: 0, errors: c.recent_errors }
          : undefined;
      },
      { minSamples: 3, windowMinutes: 60, costMarginPercent: 0.5 },
    );
    expect(again.explanation).toEqual(trace.least_cost);
    expect(again.order).toEqual(trace.eligible);
  });

  it('a wider margin keeps the cheaper service first although its rate is lower', async () => {
    const m = await createMerchantAccount(t.deps);
    const dear = await service(m, 'dear', DEAR);
    const cheap = await service(m, 'cheap', CHEAP);
    await leastCostRule(m, [dear, cheap], { min_samples: 3, cost_margin_percent: 40 });
    for (let i = 0; i < 3; i++) await pay(m);
    await t.request({
      method: 'PUT',
      url: `/payment-services/${cheap}`,
      merchantAccountId: m,
      payload: { fields: [{ key: 'simulate_outcome', value: 'decline' }] },
    });
    for (let i = 0; i < 4; i++) await pay(m);
    // cheap 3/3 (0.5) and dear 3/0 (0.8) by now, and 0.5 is within 40 points of 0.8.
    expect((await attempts((await pay(m)).id))[0]).toBe(cheap);
  });

  it('the dry run shows each candidate with its expected cost and rate; unknown costs go after known ones', async () => {
    const m = await createMerchantAccount(t.deps);
    const none = await service(m, 'none', null);
    const dear = await service(m, 'dear', DEAR);
    const cheap = await service(m, 'cheap', CHEAP);
    await leastCostRule(m, [none, dear, cheap], { cost_margin_percent: 1.5, window_minutes: 30 });
    const route = await dryRun(m);
    expect(route.least_cost).toMatchObject({
      cost_margin_percent: 1.5,
      window_minutes: 30,
      min_samples: 20,
      chosen: cheap,
    });
    expect(route.payment_services.map((s: { payment_service_id: string }) => s.payment_service_id)).toEqual([
      cheap,
      none,
      dear,
    ]);
    expect(route.payment_services[0]).toEqual({
      payment_service_id: cheap,
      display_name: 'cheap',
      eligible: true,
      skipped_because: null,
      least_cost: {
        payment_service_id: cheap,
        expected_cost: { amount: 25, exact: '25', currency: 'USD' },
        cost_unknown_because: null,
        fee_entry_index: 0,
        dimension_key: null,
        successes: 0,
        failures: 0,
        samples: 0,
        approval_rate: 0.5,
        recent_errors: 0,
        recent_calls: 0,
        availability: 1,
        estimated_rate: 0.5,
        rate_known: false,
        within_margin: true,
      },
      // The same figures under every strategy, with the circuit (docs/routing.md, "Dry run").
      current: {
        circuit: 'closed',
        estimated_rate: 0.5,
        rate_known: false,
        samples: 0,
        dimension_key: null,
        expected_cost: { amount: 25, exact: '25', currency: 'USD' },
        cost_unknown_because: null,
      },
    });
    expect(route.payment_services[1].least_cost).toMatchObject({
      expected_cost: null,
      cost_unknown_because: 'no_fee_schedule',
      fee_entry_index: null,
    });
    // A visa debit card: dear's more specific entry (0.5 %, no fixed fee) makes it the cheaper: 5 against 25.
    const debit = await dryRun(m, { method: 'card', bin: '411111', card_type: 'debit' });
    expect(debit.least_cost.chosen).toBe(dear);
    expect(debit.payment_services[0].least_cost).toMatchObject({
      expected_cost: { amount: 5, exact: '5', currency: 'USD' },
      fee_entry_index: 1,
    });
    // With only the service without a schedule, it goes first: the cost is unknown, not refused.
    await t.request({
      method: 'PUT',
      url: `/payment-services/${cheap}/fee-schedule`,
      merchantAccountId: m,
      payload: { entries: [{ currency: 'EUR', percent: '1' }] },
    });
    const unmatched = await dryRun(m);
    expect(unmatched.payment_services[0].payment_service_id).toBe(dear);
    expect(
      unmatched.least_cost.candidates.find((c: LeastCostCandidate) => c.payment_service_id === cheap),
    ).toMatchObject({
      expected_cost: null,
      cost_unknown_because: 'no_matching_entry',
    });
    // A real transaction goes where the dry run says.
    expect((await pay(m)).payment_service.id).toBe(dear);
  });
});

describe('errors', () => {
  const rule = (outcome: object) =>
    t.request({
      method: 'POST',
      url: ROUTE_RULES,
      merchantAccountId: 'default',
      payload: { conditions: [], outcome },
    });
  let ps: string;
  beforeAll(async () => {
    ps = await service('default', 'any', null);
  });
  const refusal = (pointer: string, message: string) => ({
    type: 'error',
    code: 'bad_request',
    status: 400,
    message,
    details: [{ location: 'body', pointer, message, type: 'value_error' }],
  });

  it('refuses weights with least_cost, cost_margin_percent without it, exploration_percent with it (400)', async () => {
    const weights = await rule({ payment_service_ids: [ps], weights: [100], strategy: 'least_cost' });
    expect(weights.statusCode).toBe(400);
    expect(weights.json()).toEqual(
      refusal(
        '/outcome/weights',
        'outcome.weights cannot be combined with strategy least_cost: the expected costs and rates choose the first service; leave weights out or use strategy static',
      ),
    );
    const margin = await rule({ payment_service_ids: [ps], strategy: 'success_rate', cost_margin_percent: 1 });
    expect(margin.json()).toEqual(
      refusal(
        '/outcome/cost_margin_percent',
        "outcome.cost_margin_percent applies to strategy least_cost only (this rule's strategy is success_rate)",
      ),
    );
    const explore = await rule({ payment_service_ids: [ps], strategy: 'least_cost', exploration_percent: 5 });
    expect(explore.json()).toEqual(
      refusal(
        '/outcome/exploration_percent',
        "outcome.exploration_percent applies to strategy success_rate only (this rule's strategy is least_cost)",
      ),
    );
    const window = await rule({ payment_service_ids: [ps], window_minutes: 5 });
    expect(window.json()).toEqual(
      refusal(
        '/outcome/window_minutes',
        "outcome.window_minutes applies to strategies success_rate and least_cost only (this rule's strategy is static)",
      ),
    );
  });

  it('refuses a margin out of range (422) and stores the parameters as sent', async () => {
    for (const value of [-0.1, 100.5, '1']) {
      const res = await rule({ payment_service_ids: [ps], strategy: 'least_cost', cost_margin_percent: value });
      expect(res.statusCode, String(value)).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'outcome', 'cost_margin_percent']);
    }
    const res = await rule({
      payment_service_ids: [ps],
      strategy: 'least_cost',
      cost_margin_percent: 0.25,
      min_samples: 50,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().outcome).toEqual({
      payment_service_ids: [ps],
      strategy: 'least_cost',
      cost_margin_percent: 0.25,
      min_samples: 50,
    });
    await t.request({ method: 'DELETE', url: `${ROUTE_RULES}/${res.json().id}`, merchantAccountId: 'default' });
  });
});

/** A request entry as stored (every match field present). */
function entry(e: Partial<FeeEntry>): FeeEntry {
  return { scheme: null, card_type: null, currency: null, country: null, percent: '0', fixed_fee: null, ...e };
}
