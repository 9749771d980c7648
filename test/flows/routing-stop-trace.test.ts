import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { card } from '../helpers/transactions.ts';

/**
 * Why the engine did not go on (docs/routing.md, "The decision trace"): after a matched
 * route-transaction rule's last attempt, a transaction that was not approved has a
 * route-transaction action `outcome.stopped` naming why no failover (and, where the rule allows a
 * step-up, why none), so its trace explains the end as well as each step.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const SCA_CARD = '4000000000003220';
const RETURN = 'https://shop.example/return';

async function service(m: string, name: string, outcome: string | null, extra: object = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: name }, ...(outcome ? [{ key: 'simulate_outcome', value: outcome }] : [])],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'DE'],
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function routeRule(m: string, outcome: object) {
  const res = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/actions/route-transaction/rules',
    merchantAccountId: m,
    payload: { conditions: [], outcome },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function pay(m: string, body: object = {}, headers: Record<string, string> = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card(), ...body },
    headers,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res;
}

type Action = { id: string; rule_id: string; outcome: Record<string, unknown> };
const trace = async (m: string, id: string): Promise<Action[]> =>
  (await t.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m })).json().items;
const stops = async (m: string, id: string) => (await trace(m, id)).filter((a) => 'stopped' in a.outcome);

describe('failover stopped', () => {
  it('a decline the rule does not retry: the last action says so, at which service and attempt', async () => {
    const m = await createMerchantAccount(t.deps);
    const declining = await service(m, 'declining', 'decline');
    const ok = await service(m, 'ok', null);
    const ruleId = await routeRule(m, { payment_service_ids: [declining, ok], retry_on_declines: [] });
    const res = await pay(m, {}, { 'idempotency-key': 'stop-1' });
    const txn = res.json();
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
    const actions = await trace(m, txn.id);
    expect(actions.at(-1)).toMatchObject({
      id: 'route-transaction',
      rule_id: ruleId,
      outcome: {
        stopped: { at: declining, attempt: 1, error_code: 'do_not_honor', no_failover: 'decline_not_retried' },
      },
    });
    expect((actions.at(-1)!.outcome.stopped as { attempt_id: string }).attempt_id).toEqual(expect.any(String));
    expect(actions.at(-1)!.outcome.stopped).not.toHaveProperty('no_step_up');
    // A replay returns the stored answer and adds nothing.
    const replay = await pay(m, {}, { 'idempotency-key': 'stop-1' });
    expect(replay.body).toBe(res.body);
    expect(await stops(m, txn.id)).toHaveLength(1);
  });

  it('max_attempts reached after a failover', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await service(m, 'a', 'decline');
    const b = await service(m, 'b', 'decline');
    const c = await service(m, 'c', null);
    await routeRule(m, { payment_service_ids: [a, b, c], max_attempts: 2 });
    const txn = (await pay(m)).json();
    expect(txn).toMatchObject({ status: 'authorization_declined', payment_service: { id: b } });
    const actions = await trace(m, txn.id);
    expect(actions.map((x) => Object.keys(x.outcome).find((k) => k === 'failover' || k === 'stopped'))).toEqual([
      undefined,
      'failover',
      'stopped',
    ]);
    expect(actions[2]!.outcome.stopped).toMatchObject({ at: b, attempt: 2, no_failover: 'max_attempts_reached' });
  });

  it('no service left: the services routing left out of the rule are named with why', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await service(m, 'a', 'decline');
    const euros = await service(m, 'euros', null, { accepted_currencies: ['EUR'] });
    await routeRule(m, { payment_service_ids: [a, euros] });
    const txn = (await pay(m)).json();
    expect((await stops(m, txn.id))[0]!.outcome.stopped).toEqual({
      at: a,
      attempt: 1,
      attempt_id: expect.any(String),
      error_code: 'do_not_honor',
      no_failover: 'no_more_payment_services',
      skipped: [{ payment_service_id: euros, reason: 'currency_not_accepted' }],
    });
  });

  it('an unknown outcome (timeout) is left to reconciliation, and the trace says so', async () => {
    const m = await createMerchantAccount(t.deps);
    const lost = await service(m, 'lost', 'timeout');
    const ok = await service(m, 'ok', null);
    await routeRule(m, { payment_service_ids: [lost, ok] });
    const txn = (await pay(m)).json();
    expect(txn.status).toBe('processing');
    expect((await stops(m, txn.id))[0]!.outcome.stopped).toMatchObject({
      at: lost,
      error_code: null,
      no_failover: 'outcome_unknown',
    });
  });

  it('an approval adds nothing; neither does a transaction no rule routed', async () => {
    const m = await createMerchantAccount(t.deps);
    const declining = await service(m, 'declining', 'decline');
    const ok = await service(m, 'ok', null);
    await routeRule(m, { payment_service_ids: [declining, ok] });
    const approved = (await pay(m)).json();
    expect(approved.status).toBe('authorization_succeeded');
    expect(await stops(m, approved.id)).toEqual([]);
    const forced = (await pay(m, { payment_service_id: declining })).json();
    expect(forced.status).toBe('authorization_declined');
    expect(await stops(m, forced.id)).toEqual([]);
  });
});

describe('step-up refused', () => {
  /** A service without 3DS (mock-card does not authenticate cards itself), under a rule allowing a step-up or not. */
  async function merchant(stepUp: boolean) {
    const m = await createMerchantAccount(t.deps);
    const plain = await service(m, 'plain', null);
    await routeRule(m, { payment_service_ids: [plain], ...(stepUp ? { step_up_on_soft_decline: true } : {}) });
    return { m, plain };
  }
  const sca = (extra: Record<string, unknown> = { redirect_url: RETURN }) => ({
    payment_method: card(SCA_CARD, extra),
  });

  it('no service of the rule can authenticate the card', async () => {
    const { m, plain } = await merchant(true);
    const txn = (await pay(m, sca())).json();
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'authentication_required' });
    expect((await stops(m, txn.id))[0]!.outcome.stopped).toMatchObject({
      at: plain,
      error_code: 'authentication_required',
      no_failover: 'hard_decline',
      no_step_up: 'no_service_authenticates',
    });
  });

  it('no redirect_url to bring the buyer back', async () => {
    const { m } = await merchant(true);
    const txn = (await pay(m, sca({}))).json();
    expect((await stops(m, txn.id))[0]!.outcome.stopped).toMatchObject({ no_step_up: 'no_redirect_url' });
  });

  it('a merchant-initiated payment has no buyer to challenge', async () => {
    const { m } = await merchant(true);
    const txn = (await pay(m, { ...sca(), merchant_initiated: true, payment_source: 'card_on_file' })).json();
    expect((await stops(m, txn.id))[0]!.outcome.stopped).toMatchObject({ no_step_up: 'buyer_not_present' });
  });

  it('a rule that does not allow a step-up names only why no failover', async () => {
    const { m } = await merchant(false);
    const txn = (await pay(m, sca())).json();
    const stopped = (await stops(m, txn.id))[0]!.outcome.stopped;
    expect(stopped).toMatchObject({ no_failover: 'hard_decline' });
    expect(stopped).not.toHaveProperty('no_step_up');
  });
});
