import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConnectorError, type AuthorizeOutcome, type AuthorizeRequest } from '../../../connectors/connector.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { card } from '../../../../test/helpers/transactions.ts';

/** What the rules do to real transactions and payment options, through the API. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

const RULES = (flow: string, action: string) => `/flows/${flow}/actions/${action}/rules`;

async function service(
  m: string,
  name: string,
  fields: Array<{ key: string; value: string }> = [],
  extra: object = {},
) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: name }, ...fields],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'DE'],
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function rule(m: string, flow: string, action: string, payload: object) {
  const res = await t.request({ method: 'POST', url: RULES(flow, action), merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const pay = (m: string, body: object = {}, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card(), ...body },
    headers,
  });
const actions = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m })).json().items;
const attempts = async (id: string) =>
  (
    await sql<{
      payment_service_id: string;
      status: string;
      error_code: string | null;
    }>`SELECT payment_service_id, status, error_code FROM transaction_attempts WHERE transaction_id = ${id} AND operation = 'authorize' ORDER BY id`.execute(
      t.deps.db,
    )
  ).rows;

describe('route-transaction', () => {
  it("sends a matching transaction to the rule's service, others by position", async () => {
    const m = await createMerchantAccount(t.deps);
    const first = await service(m, 'first');
    const second = await service(m, 'second');
    const ruleId = await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
      outcome: { payment_service_ids: [second] },
    });
    const eur = await pay(m, { currency: 'EUR', country: 'DE' });
    expect(eur.statusCode, eur.body).toBe(201);
    expect(eur.json()).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: second } });
    expect((await actions(m, eur.json().id))[0]).toMatchObject({
      id: 'route-transaction',
      flow: 'card-transaction',
      rule_id: ruleId,
      outcome: { selected: second, order: [second] },
    });
    const usd = (await pay(m)).json();
    expect(usd.payment_service.id).toBe(first);
    expect((await actions(m, usd.id))[0]).toMatchObject({
      rule_id: 'first-eligible-by-position',
      outcome: { selected: first },
    });
  });

  it('fails over to the next service when the first cannot be reached, and shows why', async () => {
    const m = await createMerchantAccount(t.deps);
    const down = await service(m, 'down', [{ key: 'simulate_outcome', value: 'unavailable' }]);
    const up = await service(m, 'up');
    const ruleId = await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [],
      outcome: { payment_service_ids: [down, up] },
    });
    const res = await pay(m, {}, { 'idempotency-key': 'failover-1' });
    expect(res.statusCode, res.body).toBe(201);
    const txn = res.json();
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      payment_service: { id: up, display_name: 'up' },
      error_code: null,
    });
    expect(await attempts(txn.id)).toEqual([
      { payment_service_id: down, status: 'failed', error_code: 'service_network_error' },
      { payment_service_id: up, status: 'succeeded', error_code: null },
    ]);
    const trace = await actions(m, txn.id);
    expect(trace).toHaveLength(2);
    expect(trace[1]).toMatchObject({
      id: 'route-transaction',
      rule_id: ruleId,
      outcome: { failover: { from: down, to: up, reason: 'service_unreachable', attempt: 2 } },
    });
    const events = (
      await t.request({ method: 'GET', url: `/transactions/${txn.id}/events?limit=100`, merchantAccountId: m })
    ).json().items;
    expect(
      events
        .filter((e: { context: { operation?: string } }) => e.context.operation === 'authorize')
        .map((e: { context: { payment_service_id: string } }) => e.context.payment_service_id)
        .sort(),
    ).toEqual([down, up].sort());
    // An idempotent replay: the same bytes, no new attempt.
    const replay = await pay(m, {}, { 'idempotency-key': 'failover-1' });
    expect(replay.body).toBe(res.body);
    expect(await attempts(txn.id)).toHaveLength(2);
  });

  it('fails over on a listed soft decline, but never on a hard decline or after a timeout', async () => {
    const m = await createMerchantAccount(t.deps);
    const declining = await service(m, 'declining', [{ key: 'simulate_outcome', value: 'decline' }]);
    const timingOut = await service(m, 'timing-out', [{ key: 'simulate_outcome', value: 'timeout' }]);
    const good = await service(m, 'good');
    await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [{ field: 'metadata', key: 'path', operator: 'equals', value: 'soft' }],
      outcome: { payment_service_ids: [declining, good] },
    });
    await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [{ field: 'metadata', key: 'path', operator: 'equals', value: 'timeout' }],
      outcome: { payment_service_ids: [timingOut, good] },
    });
    await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [{ field: 'metadata', key: 'path', operator: 'equals', value: 'hard' }],
      outcome: { payment_service_ids: [good, declining] },
    });
    const soft = (await pay(m, { metadata: { path: 'soft' } })).json();
    expect(soft).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: good } });
    const timeout = (await pay(m, { metadata: { path: 'timeout' } })).json();
    expect(timeout).toMatchObject({ status: 'processing', payment_service: { id: timingOut } });
    expect(await attempts(timeout.id)).toEqual([
      { payment_service_id: timingOut, status: 'unknown', error_code: 'timeout' },
    ]);
    // A decline the rule does not list (insufficient_funds) is final: never sent to the second service.
    const hard = (await pay(m, { metadata: { path: 'hard' }, amount: 2051 })).json();
    expect(hard).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      payment_service: { id: good },
    });
    expect(await attempts(hard.id)).toHaveLength(1);
  });

  it('leaves an unknown outcome after a failover to reconciliation, which asks the service that was called last', async () => {
    const m = await createMerchantAccount(t.deps);
    const down = await service(m, 'down', [{ key: 'simulate_outcome', value: 'unavailable' }]);
    const lost = await service(m, 'answer-lost', [{ key: 'simulate_outcome', value: 'timeout' }]);
    const spare = await service(m, 'spare');
    await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [],
      outcome: { payment_service_ids: [down, lost, spare] },
    });
    const txn = (await pay(m)).json();
    expect(txn).toMatchObject({ status: 'processing', payment_service: { id: lost } });
    expect(await attempts(txn.id)).toEqual([
      { payment_service_id: down, status: 'failed', error_code: 'service_network_error' },
      { payment_service_id: lost, status: 'unknown', error_code: 'timeout' },
    ]);
    const synced = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/sync`,
      merchantAccountId: m,
      payload: {},
    });
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: lost } });
    expect((await attempts(txn.id)).map((a) => a.status)).toEqual(['failed', 'succeeded']);
  });

  it('stops the cascade when the transaction is canceled while an attempt is in flight: the next service is never called', async () => {
    const m = await createMerchantAccount(t.deps);
    const first = await service(m, 'first');
    const second = await service(m, 'second');
    await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [],
      outcome: { payment_service_ids: [first, second] },
    });
    const connector = t.deps.connectors.get('mock-card') as unknown as {
      authorize(r: AuthorizeRequest): Promise<AuthorizeOutcome>;
    };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const calls = vi.spyOn(connector, 'authorize').mockImplementation(async () => {
      entered();
      await gate;
      throw new ConnectorError('unavailable', 'first service down');
    });
    const paying = pay(m);
    await inFlight;
    const id = (
      await sql<{ id: string }>`SELECT id FROM transactions WHERE merchant_account_id = ${m}`.execute(t.deps.db)
    ).rows[0]!.id;
    const cancel = await t.request({ method: 'POST', url: `/transactions/${id}/cancel`, merchantAccountId: m });
    expect(cancel.statusCode, cancel.body).toBe(200);
    release();
    const txn = (await paying).json();
    expect(txn).toMatchObject({
      status: 'authorization_failed',
      error_code: 'canceled',
      payment_service: { id: first },
    });
    expect(calls).toHaveBeenCalledTimes(1);
    expect((await attempts(id)).map((a) => a.payment_service_id)).toEqual([first]);
    expect((await actions(m, id)).filter((a: { outcome: { failover?: unknown } }) => a.outcome.failover)).toEqual([]);
  });

  it('splits by weight, the same external_identifier always on the same side', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await service(m, 'a');
    const b = await service(m, 'b');
    await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [],
      outcome: { payment_service_ids: [a, b], weights: [50, 50] },
    });
    const sides = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      const txn = (await pay(m, { external_identifier: `order-${i % 10}` })).json();
      const key = `order-${i % 10}:${txn.payment_service.id}`;
      sides.set(key, (sides.get(key) ?? 0) + 1);
    }
    // Ten orders, each paid twice on one side.
    expect([...sides.values()]).toEqual(Array(10).fill(2));
    expect(new Set([...sides.keys()].map((k) => k.split(':')[1])).size).toBe(2);
  });

  it('never charges twice whatever the three services answer: the final state is the last answer (property)', async () => {
    const behaviours = ['none', 'unavailable', 'error', 'decline', 'timeout'] as const;
    type Behaviour = (typeof behaviours)[number];
    // What each simulated service does (mock-card-simulation.ts), judged from the plan itself, not from
    // the attempt status the server records (a failover relabels the attempt it leaves): `none`
    // approves and `timeout` approves but loses the answer, so both may have charged the buyer.
    const mayCharge = (b: Behaviour) => b === 'none' || b === 'timeout';
    const attemptStatus = {
      none: 'succeeded',
      timeout: 'unknown',
      decline: 'declined',
      error: 'failed',
      unavailable: 'failed',
    } as const;
    const txnStatus = {
      succeeded: 'authorization_succeeded',
      unknown: 'processing',
      declined: 'authorization_declined',
      failed: 'authorization_failed',
    } as const;
    const connector = t.deps.connectors.get('mock-card') as unknown as {
      authorize(r: AuthorizeRequest): Promise<AuthorizeOutcome>;
    };
    const calls = vi.spyOn(connector, 'authorize');
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(fc.constantFrom(...behaviours), fc.constantFrom(...behaviours), fc.constantFrom(...behaviours)),
        async (plan) => {
          const m = await createMerchantAccount(t.deps);
          const ids: string[] = [];
          for (const [i, outcome] of plan.entries())
            ids.push(await service(m, `s${i}`, [{ key: 'simulate_outcome', value: outcome }]));
          await rule(m, 'card-transaction', 'route-transaction', {
            conditions: [],
            outcome: { payment_service_ids: ids },
          });
          calls.mockClear();
          const txn = (await pay(m)).json();
          // The services the connector was really called for, in order (merchant_id names the service).
          const called = calls.mock.calls.map(([req]) => Number(req.credentials.merchant_id!.slice(1)));
          // Could have charged: a call to a service that approves. At most one, and only the last call.
          const charging = called.filter((i) => mayCharge(plan[i]!));
          expect(charging.length, `calls to ${called.map((i) => plan[i]).join(', ')}`).toBeLessThanOrEqual(1);
          if (charging.length === 1) expect(called[called.length - 1]).toBe(charging[0]);
          // The cascade goes on exactly while the last answer certainly did not charge (do_not_honor is
          // retried by default), each service at most once, in the rule's order.
          const stop = plan.findIndex(mayCharge);
          const expectedCalls = [0, 1, 2].slice(0, stop === -1 ? 3 : stop + 1);
          expect(called).toEqual(expectedCalls);
          const made = await attempts(txn.id);
          expect(made.map((a) => [a.payment_service_id, a.status])).toEqual(
            expectedCalls.map((i) => [ids[i], attemptStatus[plan[i]!]]),
          );
          const last = plan[expectedCalls[expectedCalls.length - 1]!]!;
          expect(txn.status).toBe(txnStatus[attemptStatus[last]]);
          expect(txn.payment_service.id).toBe(ids[expectedCalls.length - 1]);
        },
      ),
      // Fixed examples first: a timeout followed by services that would answer, at each position.
      {
        numRuns: 12,
        examples: [
          [['timeout', 'none', 'none']],
          [['unavailable', 'timeout', 'none']],
          [['decline', 'error', 'timeout']],
        ],
      },
    );
  });
});

describe('decline-early and skip-3ds', () => {
  it('declines without a connector call, with the reason', async () => {
    const m = await createMerchantAccount(t.deps);
    await service(m, 'svc');
    const ruleId = await rule(m, 'card-transaction', 'decline-early', {
      conditions: [
        { field: 'bin', operator: 'prefix', value: '4111' },
        { field: 'amount', operator: 'range', value: { currency: 'USD', min: 500 } },
      ],
      outcome: { reason: 'Large amount on a watched BIN' },
    });
    const txn = (await pay(m)).json();
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'flow_decline',
      raw_response_description: 'Large amount on a watched BIN',
      payment_service: null,
    });
    expect(await attempts(txn.id)).toEqual([]);
    expect(await actions(m, txn.id)).toMatchObject([{ id: 'decline-early', rule_id: ruleId }]);
    expect((await pay(m, { amount: 100 })).json().status).toBe('authorization_succeeded');
  });

  it('skips the sandbox 3DS challenge when a skip-3ds rule matches', async () => {
    const m = await createMerchantAccount(t.deps);
    await service(m, 'secure', [], { three_d_secure_enabled: true });
    const challenged = (await pay(m, { payment_method: card('4000000000003220') })).json();
    expect(challenged.status).toBe('buyer_approval_pending');
    const ruleId = await rule(m, 'card-transaction', 'skip-3ds', {
      conditions: [{ field: 'amount', operator: 'range', value: { currency: 'USD', max: 1000 } }],
      outcome: {},
    });
    const skipped = (await pay(m, { payment_method: card('4000000000003220') })).json();
    expect(skipped).toMatchObject({ status: 'authorization_declined', error_code: 'authentication_required' });
    expect((await actions(m, skipped.id)).map((a: { id: string; rule_id: string }) => [a.id, a.rule_id])).toEqual([
      ['route-transaction', 'first-eligible-by-position'],
      ['skip-3ds', ruleId],
    ]);
  });
});

describe('select-payment-options', () => {
  it("offers the listed methods in the rule's order, and every method without a match", async () => {
    const m = await createMerchantAccount(t.deps);
    await service(m, 'cards');
    const redirect = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'x' }],
        accepted_currencies: ['USD', 'EUR'],
        accepted_countries: ['US', 'DE'],
      },
    });
    expect(redirect.statusCode, redirect.body).toBe(201);
    const options = (body: object) =>
      t.request({ method: 'POST', url: '/payment-options', merchantAccountId: m, payload: body });
    const before = (await options({ currency: 'USD', country: 'US' }))
      .json()
      .items.map((o: { method: string }) => o.method);
    expect(before).toEqual(['card', 'paybybank']);
    await rule(m, 'checkout', 'select-payment-options', {
      conditions: [{ field: 'country', operator: 'equals', value: 'DE' }],
      outcome: { payment_options: ['paybybank', 'card'] },
    });
    await rule(m, 'checkout', 'select-payment-options', {
      conditions: [{ field: 'metadata', key: 'cards_only', operator: 'equals', value: 'yes' }],
      outcome: { payment_options: ['card'] },
    });
    expect(
      (await options({ currency: 'EUR', country: 'DE' })).json().items.map((o: { method: string }) => o.method),
    ).toEqual(['paybybank', 'card']);
    expect(
      (await options({ currency: 'USD', country: 'US', metadata: { cards_only: 'yes' } }))
        .json()
        .items.map((o: { method: string }) => o.method),
    ).toEqual(['card']);
    expect(
      (await options({ currency: 'USD', country: 'US' })).json().items.map((o: { method: string }) => o.method),
    ).toEqual(before);
  });
});

describe('dry run', () => {
  it('says which rule matches, which services would be tried in order, and why the others did not match', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await service(m, 'a');
    const b = await service(m, 'b');
    const eur = await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
      outcome: { payment_service_ids: [a] },
    });
    const visa = await rule(m, 'card-transaction', 'route-transaction', {
      conditions: [{ field: 'card_scheme', operator: 'equals', value: 'visa' }],
      outcome: { payment_service_ids: [b, a] },
    });
    const res = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/dry-run',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: { method: 'card', bin: '411111' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const route = res.json().decisions.find((d: { action: string }) => d.action === 'route-transaction');
    expect(route).toMatchObject({
      matched_rule_id: visa,
      outcome: { payment_service_ids: [b, a] },
      rules: [
        {
          rule_id: eur,
          matched: false,
          not_matched_because: 'conditions',
          failed_conditions: [{ index: 0, field: 'currency', reason: 'currency is "USD", not "EUR"' }],
        },
        { rule_id: visa, matched: true, not_matched_because: null, failed_conditions: [] },
      ],
      payment_services: [
        { payment_service_id: b, display_name: 'b', eligible: true, skipped_because: null },
        { payment_service_id: a, display_name: 'a', eligible: true, skipped_because: null },
      ],
    });
    expect(res.json().decisions.map((d: { action: string }) => d.action)).toEqual([
      'decline-early',
      'route-transaction',
      'skip-3ds',
    ]);
    // Nothing was recorded.
    expect((await t.request({ method: 'GET', url: '/transactions', merchantAccountId: m })).json().items).toEqual([]);
  });
});
