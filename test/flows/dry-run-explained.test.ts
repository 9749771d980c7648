import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { card } from '../helpers/transactions.ts';

/**
 * The dry run explains a route-transaction decision for every strategy (docs/routing.md, "Dry
 * run"): each service's circuit, rate and cost now, why the first service won, and what a decline
 * asking for authentication would lead to, decided by the engine's own step-up verdict; a real
 * transaction of the same shape does what the dry run said.
 */

let t: TestApp;
beforeAll(async () => {
  // The breakers' sync is run by hand (deps.breakers.sync) so that it never runs mid-step.
  t = await buildTestApp({ CIRCUIT_BREAKER_SYNC_MS: '60000', CIRCUIT_BREAKER_CONSECUTIVE_FAILURES: '5' });
});
afterAll(async () => t.close());

const SCA_CARD = '4000000000003220';
const RETURN = 'https://shop.example/return';
const RULES = (action: string) => `/flows/card-transaction/actions/${action}/rules`;

async function service(m: string, name: string, options: { outcome?: string; threeDs?: boolean } = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [
        { key: 'merchant_id', value: name },
        ...(options.outcome ? [{ key: 'simulate_outcome', value: options.outcome }] : []),
      ],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
      three_d_secure_enabled: options.threeDs ?? false,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function rule(m: string, action: string, outcome: object) {
  const res = await t.request({
    method: 'POST',
    url: RULES(action),
    merchantAccountId: m,
    payload: { conditions: [], outcome },
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
  return res.json();
}

type Step = {
  payment_service_id: string;
  eligible: boolean;
  skipped_because: string | null;
  current?: Record<string, unknown>;
};
type RouteDecision = {
  matched_rule_id: string | null;
  payment_services: Step[];
  chosen?: { payment_service_id: string; by: string; reason: string };
  step_up?: Record<string, unknown>;
  success_rate?: { candidates: Array<{ payment_service_id: string; estimated_rate: number }> };
};

async function dryRun(m: string, pm: Record<string, unknown> = {}, body: object = {}): Promise<RouteDecision> {
  const res = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/dry-run',
    merchantAccountId: m,
    payload: {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_method: { method: 'card', bin: '400000', ...pm },
      ...body,
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
}

const trace = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m })).json().items as Array<{
    outcome: Record<string, Record<string, unknown>>;
  }>;

describe('every strategy: circuit, rate, cost and why the first won', () => {
  it('static: the breaker state of each service, costs from fee schedules, and the services skipped ahead', async () => {
    const m = await createMerchantAccount(t.deps);
    const down = await service(m, 'down', { outcome: 'unavailable' });
    const priced = await service(m, 'priced');
    const plain = await service(m, 'plain');
    const fees = await t.request({
      method: 'PUT',
      url: `/payment-services/${priced}/fee-schedule`,
      merchantAccountId: m,
      payload: {
        entries: [
          {
            scheme: null,
            card_type: null,
            currency: 'USD',
            country: null,
            percent: '2.9',
            fixed_fee: { amount: 30, currency: 'USD' },
          },
        ],
      },
    });
    expect(fees.statusCode, fees.body).toBe(200);
    // Five failures in a row open the circuit of `down` at the next sync.
    for (let i = 0; i < 5; i++) await pay(m, { payment_service_id: down });
    await t.deps.breakers.sync();
    await rule(m, 'route-transaction', { payment_service_ids: [down, priced, plain] });

    const decision = await dryRun(m);
    expect(decision.chosen).toEqual({
      payment_service_id: priced,
      by: 'rule_order',
      reason: `the first eligible service in the rule's order (skipped ahead of it: ${down} circuit_open)`,
    });
    const byId = new Map(decision.payment_services.map((s) => [s.payment_service_id, s]));
    expect(byId.get(down)).toMatchObject({ skipped_because: 'circuit_open', current: { circuit: 'open' } });
    expect(byId.get(priced)!.current).toEqual({
      circuit: 'closed',
      estimated_rate: 0.5,
      rate_known: false,
      samples: 0,
      dimension_key: null,
      expected_cost: { amount: 59, exact: '59', currency: 'USD' },
      cost_unknown_because: null,
    });
    expect(byId.get(plain)!.current).toMatchObject({ expected_cost: null, cost_unknown_because: 'no_fee_schedule' });
    // The failures counted against `down` (its rate over the default 60 minutes, when 20 outcomes are not there yet: the prior).
    expect(byId.get(down)!.current).toMatchObject({ rate_known: false });

    // A real transaction goes where the dry run said.
    const txn = await pay(m);
    expect(txn.payment_service.id).toBe(priced);
  });

  it('success_rate: each service also shows its cost, and its rate is the one the strategy used', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await service(m, 'a');
    const b = await service(m, 'b');
    for (let i = 0; i < 2; i++) await pay(m, { payment_service_id: a });
    await rule(m, 'route-transaction', {
      payment_service_ids: [b, a],
      strategy: 'success_rate',
      min_samples: 2,
      exploration_percent: 0,
    });
    const decision = await dryRun(m);
    expect(decision.chosen).toMatchObject({ payment_service_id: a, by: 'success_rate' });
    expect(decision.chosen!.reason).toContain('highest estimated rate');
    for (const candidate of decision.success_rate!.candidates) {
      const step = decision.payment_services.find((s) => s.payment_service_id === candidate.payment_service_id)!;
      expect(step.current).toMatchObject({
        estimated_rate: candidate.estimated_rate,
        circuit: 'closed',
        cost_unknown_because: 'no_fee_schedule',
      });
    }
    expect(decision.payment_services[0]!.current).toMatchObject({ rate_known: true, samples: 2, estimated_rate: 0.75 });
  });

  it('no rule: the first eligible service by position, with its figures', async () => {
    const m = await createMerchantAccount(t.deps);
    const only = await service(m, 'only');
    const decision = await dryRun(m);
    expect(decision.chosen).toMatchObject({ payment_service_id: only, by: 'first_eligible_by_position' });
    expect(decision.payment_services[0]!.current).toMatchObject({ circuit: 'closed' });
    expect(decision.step_up).toMatchObject({ stepped_up: false, refused_because: 'no_rule' });
  });
});

describe('step-up: what a decline asking for authentication would lead to', () => {
  const sca = { redirect_url: RETURN };

  it('at the next service that can authenticate; a real transaction steps up there', async () => {
    const m = await createMerchantAccount(t.deps);
    const plain = await service(m, 'plain');
    const secure = await service(m, 'secure', { threeDs: true });
    await rule(m, 'route-transaction', { payment_service_ids: [plain, secure], step_up_on_soft_decline: true });
    expect((await dryRun(m, sca)).step_up).toEqual({
      if_declined_at: plain,
      error_code: 'authentication_required',
      stepped_up: true,
      to: secure,
      same_service: false,
      authenticated_by: 'sandbox-3ds-server',
      refused_because: null,
    });
    const txn = await pay(m, { payment_method: card(SCA_CARD, { redirect_url: RETURN }) });
    expect((await trace(m, txn.id))[1]!.outcome.step_up).toMatchObject({ from: plain, to: secure });
  });

  it('at the same service when it can authenticate (3DS skipped up front by a skip-3ds rule)', async () => {
    const m = await createMerchantAccount(t.deps);
    const secure = await service(m, 'secure', { threeDs: true });
    await rule(m, 'route-transaction', { payment_service_ids: [secure], step_up_on_soft_decline: true });
    // Without the skip-3ds rule the sandbox 3DS server authenticates first: nothing to step up.
    expect((await dryRun(m, sca)).step_up).toMatchObject({
      stepped_up: false,
      refused_because: 'already_authenticated',
    });
    await rule(m, 'skip-3ds', {});
    expect((await dryRun(m, sca)).step_up).toMatchObject({ stepped_up: true, to: secure, same_service: true });
  });

  it('why not: each reason as the engine gives it, and the real transaction agrees', async () => {
    const m = await createMerchantAccount(t.deps);
    const plain = await service(m, 'plain');
    const secure = await service(m, 'secure', { threeDs: true });
    const ruleId = await rule(m, 'route-transaction', {
      payment_service_ids: [plain, secure],
      step_up_on_soft_decline: true,
      max_attempts: 1,
    });
    const refused = async (pm: Record<string, unknown>, body: object = {}) =>
      (await dryRun(m, pm, body)).step_up!.refused_because;
    expect(await refused(sca)).toBe('max_attempts_reached');
    expect(await refused({})).toBe('no_redirect_url');
    expect(await refused(sca, { merchant_initiated: true, payment_source: 'card_on_file' })).toBe('buyer_not_present');
    expect(await refused({ ...sca, method: 'network-token' })).toBe('not_a_card');
    expect(await refused(sca, { three_d_secure_status: 'complete' })).toBe('already_authenticated');
    const txn = await pay(m, { payment_method: card(SCA_CARD, { redirect_url: RETURN }) });
    expect((await trace(m, txn.id)).at(-1)!.outcome.stopped).toMatchObject({ no_step_up: 'max_attempts_reached' });

    const res = await t.request({
      method: 'PUT',
      url: `${RULES('route-transaction')}/${ruleId}`,
      merchantAccountId: m,
      payload: { outcome: { payment_service_ids: [plain], step_up_on_soft_decline: true } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await refused(sca)).toBe('no_service_authenticates');
    await t.request({
      method: 'PUT',
      url: `${RULES('route-transaction')}/${ruleId}`,
      merchantAccountId: m,
      payload: { outcome: { payment_service_ids: [plain, secure] } },
    });
    expect(await refused(sca)).toBe('not_allowed_by_rule');
  });
});
