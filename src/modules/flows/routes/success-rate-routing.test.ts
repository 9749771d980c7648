import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { card } from '../../../../test/helpers/transactions.ts';
import { chooseBySuccessRate, type CandidateEstimate } from '../../routing-stats/chooser.ts';
import { RoutingStats } from '../../routing-stats/stats-store.ts';

/** Success-rate routing through the API: rules, learning from outcomes, the trace, the dry run, shared statistics. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ROUTE_RULES = '/flows/card-transaction/actions/route-transaction/rules';
const KEY = 'scheme=visa,currency=USD,country=US,card_type=-,issuer_country=-';

async function service(app: TestApp, m: string, name: string, fields: Array<{ key: string; value: string }> = []) {
  const res = await app.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: name }, ...fields],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function successRateRule(app: TestApp, m: string, ids: string[], extra: object = {}) {
  const res = await app.request({
    method: 'POST',
    url: ROUTE_RULES,
    merchantAccountId: m,
    payload: {
      conditions: [],
      outcome: { payment_service_ids: ids, strategy: 'success_rate', exploration_percent: 0, ...extra },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function pay(app: TestApp, m: string, body: object = {}) {
  const res = await app.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card(), ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; status: string; error_code: string | null; payment_service: { id: string } };
}

const routeAction = async (app: TestApp, m: string, id: string) =>
  (await app.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m })).json().items[0];

async function dryRun(app: TestApp, m: string) {
  const res = await app.request({
    method: 'POST',
    url: '/flows/card-transaction/dry-run',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: { method: 'card', bin: '411111' } },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
}

const counts = (candidates: CandidateEstimate[]) =>
  Object.fromEntries(candidates.map((c) => [c.payment_service_id, [c.successes, c.failures, c.dimension_key]]));

const attempts = async (id: string) =>
  (
    await sql<{ payment_service_id: string }>`SELECT payment_service_id FROM transaction_attempts
      WHERE transaction_id = ${id} AND operation = 'authorize' ORDER BY id`.execute(t.deps.db)
  ).rows.map((r) => r.payment_service_id);

describe('happy', () => {
  it('learns from outcomes: after enough failures at one service, traffic goes to the better one first', async () => {
    const m = await createMerchantAccount(t.deps);
    const flaky = await service(t, m, 'flaky', [{ key: 'simulate_outcome', value: 'error' }]);
    const solid = await service(t, m, 'solid');
    const ruleId = await successRateRule(t, m, [flaky, solid], { min_samples: 5 });
    // No outcome yet: equal priors, so the rule's order; flaky fails, and solid takes the payment.
    const first = await pay(t, m);
    expect(first).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: solid } });
    expect(await attempts(first.id)).toEqual([flaky, solid]);
    // A technical error weighs on flaky's availability at once (min_samples is for the approval
    // rate): solid goes first from now on.
    for (let i = 0; i < 4; i++) expect(await attempts((await pay(t, m)).id)).toEqual([solid]);
    const learned = await pay(t, m);
    expect(learned.payment_service.id).toBe(solid);
    expect(await attempts(learned.id)).toEqual([solid]);
    const action = await routeAction(t, m, learned.id);
    expect(action).toMatchObject({
      id: 'route-transaction',
      rule_id: ruleId,
      outcome: { selected: solid, eligible: [solid, flaky], order: [flaky, solid], strategy: 'success_rate' },
    });
    const decision = action.outcome.success_rate;
    expect(decision).toMatchObject({
      seed: learned.id,
      explored: false,
      min_samples: 5,
      exploration_percent: 0,
      window_minutes: 60,
      chosen: solid,
      reason: `highest estimated rate ${Math.round((6 / 7) * 1e6) / 1e6} (5 answers at ${KEY})`,
    });
    // flaky's technical errors count against its availability, not its approval rate (no answer yet).
    expect(counts(decision.candidates)).toEqual({ [flaky]: [0, 0, null], [solid]: [5, 0, KEY] });
    expect(decision.candidates[0]).toEqual({
      payment_service_id: flaky,
      dimension_key: null,
      successes: 0,
      failures: 0,
      samples: 0,
      approval_rate: 0.5,
      recent_errors: 1,
      recent_calls: 1,
      availability: 0.5,
      estimated_rate: 0.25,
      sampled_value: expect.any(Number),
    });
    // The decision is reproducible from the trace alone: its counts, its recent calls and its seed.
    const keys = [...new Set(decision.candidates.map((c: CandidateEstimate) => c.dimension_key))] as string[];
    const byId = new Map<string, CandidateEstimate>(
      decision.candidates.map((c: CandidateEstimate) => [c.payment_service_id, c]),
    );
    const again = chooseBySuccessRate(
      [flaky, solid],
      keys,
      (id, key) => {
        const c = byId.get(id)!;
        return c.dimension_key === key ? { successes: c.successes, failures: c.failures, errors: 0 } : undefined;
      },
      (id, key) => {
        const c = byId.get(id)!;
        const answered = c.recent_calls - c.recent_errors;
        return key === '*' ? { successes: answered, failures: 0, errors: c.recent_errors } : undefined;
      },
      { minSamples: 5, explorationPercent: 0, windowMinutes: 60 },
      decision.seed,
    );
    expect(again.explanation).toEqual(decision);
    // From now on every transaction goes to solid first.
    for (let i = 0; i < 5; i++) expect(await attempts((await pay(t, m)).id)).toEqual([solid]);
  });

  it('with exploration on (the default 10 %), most traffic soon goes to the service that fails less', async () => {
    const m = await createMerchantAccount(t.deps);
    const halfDown = await service(t, m, 'half-down', [
      { key: 'simulate_outcome', value: 'error' },
      { key: 'simulate_share', value: '50' },
    ]);
    const solid = await service(t, m, 'solid');
    const res = await t.request({
      method: 'POST',
      url: ROUTE_RULES,
      merchantAccountId: m,
      payload: {
        conditions: [],
        outcome: { payment_service_ids: [halfDown, solid], strategy: 'success_rate', min_samples: 5 },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const firsts: string[] = [];
    for (let i = 0; i < 40; i++) {
      const txn = await pay(t, m);
      // Failover keeps every payment whole whatever the order.
      expect(txn.status).toBe('authorization_succeeded');
      firsts.push((await attempts(txn.id))[0]!);
    }
    // Once both have evidence (about 0.5 against about 1), exploration rarely sends one elsewhere first.
    expect(firsts.slice(-15).filter((id) => id === solid).length).toBeGreaterThanOrEqual(12);
  });

  it('does not count declines the card caused; counts soft declines against the service', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await service(t, m, 'a');
    const b = await service(t, m, 'b');
    await successRateRule(t, m, [a, b], { min_samples: 1 });
    expect((await pay(t, m, { amount: 2051 })).error_code).toBe('insufficient_funds');
    expect((await pay(t, m, { payment_method: card('4000000000000069') })).error_code).toBe('expired_card');
    expect((await pay(t, m, { payment_method: card('4000000000000127') })).error_code).toBe('incorrect_cvv');
    let route = await dryRun(t, m);
    expect(counts(route.success_rate.candidates)).toEqual({ [a]: [0, 0, null], [b]: [0, 0, null] });
    // do_not_honor at a, failed over to b, declined there too: one failure each.
    const soft = await pay(t, m, { amount: 2005 });
    expect(soft.error_code).toBe('do_not_honor');
    route = await dryRun(t, m);
    expect(counts(route.success_rate.candidates)).toEqual({ [a]: [0, 1, KEY], [b]: [0, 1, KEY] });
  });

  it('the dry run shows each candidate with its rates, availability, samples, key and sampled value, and why the first won', async () => {
    const m = await createMerchantAccount(t.deps);
    const flaky = await service(t, m, 'flaky', [{ key: 'simulate_outcome', value: 'unavailable' }]);
    const solid = await service(t, m, 'solid');
    await successRateRule(t, m, [flaky, solid], { min_samples: 2, window_minutes: 30 });
    for (let i = 0; i < 2; i++) await pay(t, m);
    const route = await dryRun(t, m);
    expect(route.success_rate).toMatchObject({ seed: 'dry-run', chosen: solid, explored: false, window_minutes: 30 });
    expect(route.payment_services).toEqual([
      {
        payment_service_id: solid,
        display_name: 'solid',
        eligible: true,
        skipped_because: null,
        success_rate: {
          payment_service_id: solid,
          dimension_key: KEY,
          successes: 2,
          failures: 0,
          samples: 2,
          approval_rate: 0.75,
          recent_errors: 0,
          recent_calls: 2,
          availability: 1,
          estimated_rate: 0.75,
          sampled_value: expect.any(Number),
        },
        current: expect.objectContaining({ estimated_rate: 0.75, rate_known: true, dimension_key: KEY }),
      },
      {
        payment_service_id: flaky,
        display_name: 'flaky',
        eligible: true,
        skipped_because: null,
        // Unreachable once (then solid went first): no answer (the prior 0.5), available for 1 call in 2.
        success_rate: expect.objectContaining({
          successes: 0,
          failures: 0,
          recent_errors: 1,
          recent_calls: 1,
          availability: 0.5,
          estimated_rate: 0.25,
        }),
        current: expect.objectContaining({ estimated_rate: 0.25, cost_unknown_because: 'no_fee_schedule' }),
      },
    ]);
  });

  it('keeps the statistics across a restart of the process (they are in the database)', async () => {
    const m = await createMerchantAccount(t.deps);
    const solid = await service(t, m, 'solid');
    const other = await service(t, m, 'other');
    await successRateRule(t, m, [other, solid], { min_samples: 1 });
    await pay(t, m, { payment_method: card('4000000000000119') });
    await pay(t, m, { amount: 2005 });
    const evidence = (candidates: CandidateEstimate[]) =>
      Object.fromEntries(
        candidates.map((c) => [c.payment_service_id, [c.successes, c.failures, c.recent_errors, c.dimension_key]]),
      );
    const before = evidence((await dryRun(t, m)).success_rate.candidates);
    // other: a technical error (card ...0119, failed over to solid), then a soft decline (2005).
    expect(before[other]).toEqual([0, 1, 1, KEY]);
    // A restart: the process's statistics are written on shutdown and its memory is gone.
    await t.deps.routingStats.close();
    t.deps.routingStats = new RoutingStats(t.deps.db);
    t.deps.routingStats.start();
    expect(evidence((await dryRun(t, m)).success_rate.candidates)).toEqual(before);
  });
});

describe('errors', () => {
  const rule = (outcome: object, action = 'route-transaction') =>
    t.request({
      method: 'POST',
      url: `/flows/card-transaction/actions/${action}/rules`,
      merchantAccountId: 'default',
      payload: { conditions: [], outcome },
    });
  let ps: string;
  beforeAll(async () => {
    ps = await service(t, 'default', 'any');
  });
  const refusal = (pointer: string, message: string) => ({
    type: 'error',
    code: 'bad_request',
    status: 400,
    message,
    details: [{ location: 'body', pointer, message, type: 'value_error' }],
  });

  it('refuses weights with success_rate, and its parameters without it (400, the field and why)', async () => {
    const both = await rule({ payment_service_ids: [ps], weights: [100], strategy: 'success_rate' });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toEqual(
      refusal(
        '/outcome/weights',
        'outcome.weights cannot be combined with strategy success_rate: the success rates choose the first service; leave weights out or use strategy static',
      ),
    );
    const stray = await rule({ payment_service_ids: [ps], min_samples: 10 });
    expect(stray.statusCode).toBe(400);
    expect(stray.json()).toEqual(
      refusal(
        '/outcome/min_samples',
        "outcome.min_samples applies to strategies success_rate and least_cost only (this rule's strategy is static)",
      ),
    );
    const elsewhere = await rule({ strategy: 'success_rate' }, 'decline-early');
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toEqual(
      refusal('/outcome/strategy', 'outcome.strategy does not apply to decline-early (its fields: reason)'),
    );
  });

  it('refuses an unknown strategy and parameters out of range (422, the schema)', async () => {
    for (const [field, value] of [
      ['strategy', 'fastest'],
      ['exploration_percent', 51],
      ['min_samples', 0],
      ['window_minutes', 1441],
    ] as const) {
      const res = await rule({ payment_service_ids: [ps], strategy: 'success_rate', [field]: value });
      expect(res.statusCode, field).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'outcome', field]);
    }
  });

  it('stores the strategy and its parameters as sent', async () => {
    const res = await rule({
      payment_service_ids: [ps],
      strategy: 'success_rate',
      min_samples: 50,
      window_minutes: 15,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().outcome).toEqual({
      payment_service_ids: [ps],
      strategy: 'success_rate',
      min_samples: 50,
      window_minutes: 15,
    });
    await t.request({ method: 'DELETE', url: `${ROUTE_RULES}/${res.json().id}`, merchantAccountId: 'default' });
  });
});

describe.skipIf(!usesPostgres())('several processes on one PostgreSQL database', () => {
  let peer: TestApp;
  beforeAll(async () => {
    peer = await buildTestApp({}, { peerOf: t });
  });
  afterAll(async () => peer?.close());

  it('add up their statistics, and a restarted process finds them', async () => {
    const m = await createMerchantAccount(t.deps);
    const solid = await service(t, m, 'solid');
    const other = await service(t, m, 'other');
    await successRateRule(t, m, [solid, other], { min_samples: 1 });
    for (let i = 0; i < 3; i++) expect((await pay(t, m)).payment_service.id).toBe(solid);
    for (let i = 0; i < 4; i++) expect((await pay(peer, m)).payment_service.id).toBe(solid);
    await Promise.all([t.deps.routingStats.flush(), peer.deps.routingStats.flush()]);
    for (const app of [t, peer]) {
      app.deps.routingStats.invalidate();
      expect(counts((await dryRun(app, m)).success_rate.candidates)[solid]).toEqual([7, 0, KEY]);
    }
    // A third process pays, stops (writing its last outcomes on shutdown), and a fourth finds them all.
    const third = await buildTestApp({}, { peerOf: t });
    await pay(third, m, { amount: 2005 });
    await third.close();
    const fourth = await buildTestApp({}, { peerOf: t });
    try {
      expect(counts((await dryRun(fourth, m)).success_rate.candidates)[solid]).toEqual([7, 1, KEY]);
    } finally {
      await fourth.close();
    }
  });
});
