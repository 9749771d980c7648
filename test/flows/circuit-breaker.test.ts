import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../helpers/build-test-app.ts';
import { changesDelivered } from '../helpers/changes-delivered.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { METRICS_TOKEN, sample, scrape } from '../helpers/metrics.ts';
import { card } from '../helpers/transactions.ts';

/**
 * The circuit breaker of payment services through the API (docs/routing.md, "Elimination: the
 * circuit breaker"): mock-card services made unreachable with `simulate_outcome` (docs/sandbox.md),
 * the breakers' clock injected, and `deps.breakers.sync()` standing for the once-a-second sync
 * (the periodic one is set to a minute here so that it never runs in the middle of a step).
 */

const ENV = {
  METRICS_TOKEN,
  CIRCUIT_BREAKER_SYNC_MS: '60000',
  CIRCUIT_BREAKER_CONSECUTIVE_FAILURES: '5',
  CIRCUIT_BREAKER_COOLDOWN_SECONDS: '30',
  CIRCUIT_BREAKER_PROBE_PERCENT: '10',
};

let clock = Date.now();
const now = () => clock;
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp(ENV, { runtime: { breakerClock: now } });
});
afterAll(async () => t.close());

async function service(app: TestApp, m: string, name: string, outcome = 'none') {
  const res = await app.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [
        { key: 'merchant_id', value: name },
        { key: 'simulate_outcome', value: outcome },
      ],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function simulate(m: string, id: string, outcome: string) {
  const res = await t.request({
    method: 'PUT',
    url: `/payment-services/${id}`,
    merchantAccountId: m,
    payload: {
      fields: [
        { key: 'merchant_id', value: 'x' },
        { key: 'simulate_outcome', value: outcome },
      ],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function rule(m: string, ids: string[]) {
  const res = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/actions/route-transaction/rules',
    merchantAccountId: m,
    payload: { conditions: [], outcome: { payment_service_ids: ids, max_attempts: 2 } },
  });
  expect(res.statusCode, res.body).toBe(201);
}

async function pay(app: TestApp, m: string) {
  const res = await app.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card() },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; status: string; payment_service: { id: string } };
}

/** The routing decision of a transaction (its first action) from GET /transactions/{id}/actions. */
async function decision(app: TestApp, m: string, id: string) {
  const res = await app.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items[0].outcome as {
    eligible: string[];
    skipped: Array<{ payment_service_id: string; reason: string }>;
    selected: string;
    circuit_open_kept?: string[];
    circuit_probes?: string[];
    breaker?: boolean;
  };
}

async function dryRun(m: string) {
  const res = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/dry-run',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: { method: 'card', bin: '411111' } },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().decisions.find((d: { action: string }) => d.action === 'route-transaction').payment_services;
}

const events = async (app: TestApp, m: string) =>
  (
    await sql<{
      kind: string;
      resource_id: string;
      payload: Record<string, unknown>;
    }>`SELECT kind, resource_id, payload FROM events WHERE merchant_account_id = ${m} AND resource_type = 'payment-service' ORDER BY created_at, id`.execute(
      app.deps.db,
    )
  ).rows;

async function audit(m: string) {
  const res = await t.request({
    method: 'GET',
    url: '/audit-logs?resource_type=payment-service',
    merchantAccountId: m,
  });
  expect(res.statusCode, res.body).toBe(200);
  return (
    res.json().items as Array<{ action: string; resource: { id: string }; user: { id: string | null; name: string } }>
  )
    .filter((e) => e.user.name.startsWith('System (circuit breaker'))
    .reverse();
}

describe('the circuit breaker of a payment service', () => {
  it('opens after technical failures, skips the service, probes it after the cool-down and closes when it answers', async () => {
    const m = await createMerchantAccount(t.deps);
    await subscribeToEvents(t, m);
    const down = await service(t, m, 'down', 'unavailable');
    const up = await service(t, m, 'up');
    await rule(m, [down, up]);
    const before = await scrape(t);
    // Five transactions fail over from `down` to `up`: five failures in a row at `down`.
    for (let i = 0; i < 5; i++) expect((await pay(t, m)).payment_service.id).toBe(up);
    expect(t.deps.breakers.stateOf(m, down)).toBe('closed');
    await t.deps.breakers.sync();
    expect(t.deps.breakers.stateOf(m, down)).toBe('open');

    const skipped = await pay(t, m);
    expect(skipped).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: up } });
    expect(await decision(t, m, skipped.id)).toMatchObject({
      eligible: [up],
      skipped: [{ payment_service_id: down, reason: 'circuit_open' }],
      selected: up,
    });
    expect(await dryRun(m)).toEqual([
      {
        payment_service_id: up,
        display_name: 'up',
        eligible: true,
        skipped_because: null,
        current: expect.objectContaining({ circuit: 'closed' }),
      },
      {
        payment_service_id: down,
        display_name: 'down',
        eligible: false,
        skipped_because: 'circuit_open',
        current: expect.objectContaining({ circuit: 'open' }),
      },
    ]);

    const opened = await events(t, m);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      kind: 'payment-service.circuit_opened',
      resource_id: down,
      payload: {
        type: 'payment-service-circuit',
        payment_service_id: down,
        payment_service_definition_id: 'mock-card',
        display_name: 'down',
        state: 'open',
        reason: '5 calls failed in a row',
        retry_at: new Date(clock + 30_000).toISOString(),
      },
    });
    expect(await audit(m)).toEqual([
      expect.objectContaining({
        action: 'updated',
        resource: expect.objectContaining({ type: 'payment-service', id: down, name: 'down' }),
        user: expect.objectContaining({ id: null, name: 'System (circuit breaker opened: 5 calls failed in a row)' }),
      }),
    ]);
    const afterOpen = await scrape(t);
    const transitions = (text: string, transition: string) =>
      sample(text, 'svc_circuit_breaker_transitions_total', { payment_service_definition: 'mock-card', transition });
    expect(transitions(afterOpen, 'opened') - transitions(before, 'opened')).toBe(1);
    expect(
      sample(afterOpen, 'svc_circuit_breakers_open', { payment_service_definition: 'mock-card', state: 'open' }),
    ).toBeGreaterThanOrEqual(1);

    // The cool-down ends with `down` still down: the first transaction probes it (and fails over),
    // the next ones do not (one in ten probes).
    clock += 30_000;
    const probe = await pay(t, m);
    expect(probe.payment_service.id).toBe(up);
    expect(await decision(t, m, probe.id)).toMatchObject({
      eligible: [down, up],
      circuit_probes: [down],
      selected: down,
    });
    for (let i = 0; i < 3; i++) {
      const spared = await pay(t, m);
      expect(await decision(t, m, spared.id)).toMatchObject({
        eligible: [up],
        skipped: [{ payment_service_id: down, reason: 'circuit_half_open' }],
      });
    }
    expect(await dryRun(m)).toContainEqual(
      expect.objectContaining({
        payment_service_id: down,
        skipped_because: 'circuit_half_open',
        current: expect.objectContaining({ circuit: 'half_open' }),
      }),
    );
    // The failed probe opens it again for another cool-down: counted, but no new event.
    await t.deps.breakers.sync();
    expect(t.deps.breakers.stateOf(m, down)).toBe('open');
    expect(await decision(t, m, (await pay(t, m)).id)).toMatchObject({
      skipped: [{ payment_service_id: down, reason: 'circuit_open' }],
    });
    expect(await events(t, m)).toHaveLength(1);
    expect(transitions(await scrape(t), 'reopened') - transitions(before, 'reopened')).toBe(1);

    // `down` recovers; after the next cool-down a probe succeeds there and closes the circuit.
    await simulate(m, down, 'none');
    clock += 30_000;
    const restored = await pay(t, m);
    expect(restored).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: down } });
    expect(await decision(t, m, restored.id)).toMatchObject({ circuit_probes: [down], selected: down });
    await t.deps.breakers.sync();
    expect(t.deps.breakers.stateOf(m, down)).toBe('closed');
    const normal = await decision(t, m, (await pay(t, m)).id);
    expect(normal).toMatchObject({ eligible: [down, up], skipped: [], selected: down });
    expect(normal.circuit_probes).toBeUndefined();

    expect((await events(t, m)).map((e) => e.kind)).toEqual([
      'payment-service.circuit_opened',
      'payment-service.circuit_closed',
    ]);
    expect((await events(t, m))[1]).toMatchObject({
      resource_id: down,
      payload: { state: 'closed', reason: 'a probe succeeded', opened_at: null, retry_at: null },
    });
    expect((await audit(m)).map((e) => e.user.name)).toEqual([
      'System (circuit breaker opened: 5 calls failed in a row)',
      'System (circuit breaker closed: a probe succeeded)',
    ]);
    expect(transitions(await scrape(t), 'closed') - transitions(before, 'closed')).toBe(1);
  });

  it('never opens on declines', async () => {
    const m = await createMerchantAccount(t.deps);
    await subscribeToEvents(t, m);
    const declining = await service(t, m, 'declining', 'decline');
    const other = await service(t, m, 'other');
    for (let i = 0; i < 12; i++) expect((await pay(t, m)).status).toBe('authorization_declined');
    await t.deps.breakers.sync();
    expect(t.deps.breakers.stateOf(m, declining)).toBe('closed');
    expect(await decision(t, m, (await pay(t, m)).id)).toMatchObject({ eligible: [declining, other], skipped: [] });
    expect(await events(t, m)).toEqual([]);
  });

  it("keeps a merchant's only service in routing when its circuit is open, and says so", async () => {
    const m = await createMerchantAccount(t.deps);
    const only = await service(t, m, 'only', 'unavailable');
    for (let i = 0; i < 5; i++) expect((await pay(t, m)).status).toBe('authorization_failed');
    await t.deps.breakers.sync();
    expect(t.deps.breakers.stateOf(m, only)).toBe('open');
    const kept = await pay(t, m);
    expect(kept).toMatchObject({ status: 'authorization_failed', payment_service: { id: only } });
    expect(await decision(t, m, kept.id)).toMatchObject({
      eligible: [only],
      skipped: [],
      selected: only,
      circuit_open_kept: [only],
    });
  });

  it('routes to a tripped service when the matched rule says breaker false', async () => {
    const m = await createMerchantAccount(t.deps);
    const down = await service(t, m, 'down', 'unavailable');
    const up = await service(t, m, 'up');
    const res = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/route-transaction/rules',
      merchantAccountId: m,
      payload: { conditions: [], outcome: { payment_service_ids: [down, up], breaker: false } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().outcome).toMatchObject({ breaker: false });
    for (let i = 0; i < 5; i++) await pay(t, m);
    await t.deps.breakers.sync();
    expect(t.deps.breakers.stateOf(m, down)).toBe('open');
    const txn = await pay(t, m);
    expect(txn.payment_service.id).toBe(up);
    expect(await decision(t, m, txn.id)).toMatchObject({
      eligible: [down, up],
      skipped: [],
      selected: down,
      breaker: false,
    });
    expect((await dryRun(m))[0]).toMatchObject({ payment_service_id: down, eligible: true });
    // Another action has no breaker.
    const refused = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/decline-early/rules',
      merchantAccountId: m,
      payload: { conditions: [], outcome: { breaker: false } },
    });
    expect(refused.statusCode, refused.body).toBe(400);
  });

  it.runIf(usesPostgres())(
    'shares the circuits between two processes on one database: one opening, seen by both',
    async () => {
      const peer = await buildTestApp(ENV, { peerOf: t, runtime: { breakerClock: now } });
      try {
        const m = await createMerchantAccount(t.deps);
        await subscribeToEvents(t, m);
        const down = await service(t, m, 'down', 'unavailable');
        const up = await service(t, m, 'up');
        await rule(m, [down, up]);
        // Each process sees five failures; both sync at once: one of them opens it, once.
        for (let i = 0; i < 5; i++) {
          await pay(t, m);
          await pay(peer, m);
        }
        await Promise.all([t.deps.breakers.sync(), peer.deps.breakers.sync()]);
        expect((await events(t, m)).map((e) => e.kind)).toEqual(['payment-service.circuit_opened']);
        expect(await audit(m)).toHaveLength(1);
        expect(t.deps.breakers.stateOf(m, down)).toBe('open');
        expect(peer.deps.breakers.stateOf(m, down)).toBe('open');
        expect(await decision(peer, m, (await pay(peer, m)).id)).toMatchObject({
          skipped: [{ payment_service_id: down, reason: 'circuit_open' }],
        });

        // A process started later (a restart) reads the open circuit from the database.
        const restarted = await buildTestApp(ENV, { peerOf: t, runtime: { breakerClock: now } });
        try {
          expect(restarted.deps.breakers.stateOf(m, down)).toBe('closed');
          await restarted.deps.breakers.sync();
          expect(restarted.deps.breakers.stateOf(m, down)).toBe('open');
        } finally {
          await restarted.close();
        }

        // A probe succeeding in one process closes it for both.
        await simulate(m, down, 'none');
        // The peer's cache of payment services hears of the change through its change feed.
        await changesDelivered(peer);
        clock += 30_000;
        expect((await pay(peer, m)).payment_service.id).toBe(down);
        await peer.deps.breakers.sync();
        await t.deps.breakers.sync();
        expect(t.deps.breakers.stateOf(m, down)).toBe('closed');
        expect((await events(t, m)).map((e) => e.kind)).toEqual([
          'payment-service.circuit_opened',
          'payment-service.circuit_closed',
        ]);
        expect((await pay(t, m)).payment_service.id).toBe(down);
      } finally {
        await peer.close();
      }
    },
  );
});
