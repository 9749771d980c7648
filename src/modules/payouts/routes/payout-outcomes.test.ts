import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MockCardConnector } from '../../../connectors/mock/mock-card.connector.ts';
import { RECURRING } from '../../../jobs/index.ts';
import { reconcilePayouts } from '../../../jobs/reconcile-payouts.job.ts';
import {
  PAYOUT_AMOUNT_SCENARIOS,
  PAYOUT_CARDS,
  type MockPayoutScenario,
} from '../../../connectors/mock/mock-card-payouts.scenarios.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { merchantWithMockCard, payoutCard, postPayout, storeCard } from '../../../../test/helpers/payouts.ts';
import { reconcileDuePayouts } from '../reconcile-payouts.service.ts';

/**
 * docs/sandbox.md "Payout outcomes" driven through the API: what POST /payouts answers for each mock-card
 * scenario, and what reconciliation (the reconcile-payouts job, the payout status query) makes of
 * the payouts left pending.
 */

let t: TestApp;
let merchant: string;
let service: string;
beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: merchant, paymentServiceId: service } = await merchantWithMockCard(t));
  // Payouts' webhook events are read: written only for a merchant account with a subscription.
  await subscribeToEvents(t, merchant);
});
afterAll(async () => t.close());

const FIRST: Record<MockPayoutScenario['kind'], string> = {
  succeed: 'succeeded',
  pending: 'pending',
  decline: 'declined',
  fail: 'failed',
  timeout: 'pending',
  unavailable: 'failed',
};
const FINAL: Record<MockPayoutScenario['kind'], string> = {
  succeed: 'succeeded',
  pending: 'succeeded',
  decline: 'declined',
  fail: 'failed',
  timeout: 'succeeded',
  unavailable: 'failed',
};
const ATTEMPT: Record<MockPayoutScenario['kind'], string> = {
  succeed: 'succeeded',
  pending: 'pending',
  decline: 'declined',
  fail: 'failed',
  timeout: 'unknown',
  unavailable: 'failed',
};

const get = async (id: string) =>
  (await t.request({ method: 'GET', url: `/payouts/${id}`, merchantAccountId: merchant })).json();
const attemptOf = (id: string) =>
  t.deps.db.selectFrom('payout_attempts').selectAll().where('payout_id', '=', id).executeTakeFirstOrThrow();
const kinds = async (id: string) =>
  (
    await t.deps.db
      .selectFrom('events')
      .select('kind')
      .where('resource_id', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((e) => e.kind);
const soon = (minutes: number) => new Date(Date.now() + minutes * 60_000);

const cases = [
  ...[...PAYOUT_AMOUNT_SCENARIOS].map(([amount, entry]) => ({
    name: `amount ${amount}: ${entry.description}`,
    body: { amount },
    scenario: entry.scenario,
  })),
  ...[...PAYOUT_CARDS].map(([number, entry]) => ({
    name: `card ${number}: ${entry.description}`,
    body: { payment_method: payoutCard(number) },
    scenario: entry.scenario,
  })),
  { name: 'any other payout succeeds', body: {}, scenario: { kind: 'succeed' } as MockPayoutScenario },
];

describe('happy', () => {
  it.each(cases)('$name', async ({ body, scenario }) => {
    const res = await postPayout(t, merchant, service, body);
    expect(res.statusCode, res.body).toBe(201);
    const payout = res.json();
    expect(payout.status).toBe(FIRST[scenario.kind]);
    const attempt = await attemptOf(payout.id);
    expect(attempt.status).toBe(ATTEMPT[scenario.kind]);
    // Open attempts are looked at again in 5 minutes; final ones never.
    if (FIRST[scenario.kind] === 'pending')
      expect(attempt.next_check_at!.getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
    else expect(attempt.next_check_at).toBeNull();
    if (scenario.kind === 'decline' || scenario.kind === 'fail')
      expect(attempt).toMatchObject({ error_code: scenario.errorCode, raw_response_code: scenario.rawCode });
    if (scenario.kind === 'unavailable') expect(payout.payment_service_payout_id).toBeNull();
    expect(await kinds(payout.id)).toEqual([`payout.${FIRST[scenario.kind]}`]);

    await reconcileDuePayouts(t.deps, soon(6));
    const after = await get(payout.id);
    expect(after.status).toBe(FINAL[scenario.kind]);
    expect(await kinds(payout.id)).toEqual(
      FIRST[scenario.kind] === FINAL[scenario.kind]
        ? [`payout.${FIRST[scenario.kind]}`]
        : [`payout.${FIRST[scenario.kind]}`, `payout.${FINAL[scenario.kind]}`],
    );
    expect((await attemptOf(payout.id)).next_check_at).toBeNull();
    if (FINAL[scenario.kind] === 'succeeded') expect(after.payment_service_payout_id).toMatch(/^mock_pay_/);
  });

  it('applies the amount scenarios to stored cards too, and the card scenarios by the stored number', async () => {
    const card = await storeCard(t, merchant, '4000000000000572');
    expect((await postPayout(t, merchant, service, { payment_method: { id: card } })).json().status).toBe('declined');
    const plain = await storeCard(t, merchant, '4111111111111111');
    expect(
      (await postPayout(t, merchant, service, { payment_method: { id: plain }, amount: 3051 })).json().status,
    ).toBe('declined');
  });

  it('settles a timed-out payout with the reconcile-payouts job, without paying twice, and audits the change', async () => {
    const payout = (await postPayout(t, merchant, service, { amount: 3408 })).json();
    expect(payout.status).toBe('pending');
    const connector = t.deps.connectors.get('mock-card') as MockCardConnector;
    const payoutSpy = vi.spyOn(connector, 'payout');
    const syncSpy = vi.spyOn(connector, 'syncPayout');
    try {
      // Not due yet: the job leaves it.
      const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
      await reconcilePayouts.handle({}, { deps: t.deps, jobId: 'job-1', attempt: 1, log });
      expect((await get(payout.id)).status).toBe('pending');
      await t.deps.db
        .updateTable('payout_attempts')
        .set({ next_check_at: new Date(Date.now() - 1000) })
        .where('payout_id', '=', payout.id)
        .execute();
      await reconcilePayouts.handle({}, { deps: t.deps, jobId: 'job-2', attempt: 1, log });
      const attempt = await attemptOf(payout.id);
      expect(syncSpy).toHaveBeenCalledWith(
        expect.objectContaining({ idempotencyKey: attempt.id, providerPayoutId: null, amount: 3408 }),
      );
      expect(payoutSpy).not.toHaveBeenCalled();
      expect(await get(payout.id)).toMatchObject({
        status: 'succeeded',
        payment_service_payout_id: expect.stringMatching(/^mock_pay_/),
      });
      expect(attempt).toMatchObject({ status: 'succeeded', checks: 1, next_check_at: null });
    } finally {
      payoutSpy.mockRestore();
      syncSpy.mockRestore();
    }
    const audit = (
      await t.request({
        method: 'GET',
        url: '/audit-logs?resource_type=payout&action=updated',
        merchantAccountId: merchant,
      })
    ).json();
    expect(audit.items).toContainEqual(
      expect.objectContaining({ action: 'updated', resource: expect.objectContaining({ id: payout.id }) }),
    );
  });

  it('keeps asking while the provider says pending, on the 5 minutes, 1 hour, daily schedule', async () => {
    const payout = (await postPayout(t, merchant, service, { amount: 3077 })).json();
    const connector = t.deps.connectors.get('mock-card') as MockCardConnector;
    const stillPending = {
      status: 'pending' as const,
      providerPayoutId: 'mock_pay_x',
      errorCode: null,
      rawResponseCode: null,
      rawResponseDescription: null,
    };
    const spy = vi.spyOn(connector, 'syncPayout').mockResolvedValue(stillPending);
    try {
      const now = soon(6);
      await reconcileDuePayouts(t.deps, now);
      let attempt = await attemptOf(payout.id);
      expect(attempt).toMatchObject({ status: 'pending', checks: 1 });
      expect(attempt.next_check_at!.getTime() - now.getTime()).toBe(60 * 60_000);
      await reconcileDuePayouts(t.deps, attempt.next_check_at!);
      attempt = await attemptOf(payout.id);
      expect(attempt.checks).toBe(2);
      expect((await get(payout.id)).status).toBe('pending');
    } finally {
      spy.mockRestore();
    }
    await reconcileDuePayouts(t.deps, soon(3 * 24 * 60));
    expect((await get(payout.id)).status).toBe('succeeded');
  });

  it('treats an unexpected connector error as an unknown outcome, which reconciliation settles', async () => {
    const connector = t.deps.connectors.get('mock-card') as MockCardConnector;
    const original = connector.payout.bind(connector);
    // The provider received the payout and paid; the error came on the way back.
    const spy = vi.spyOn(connector, 'payout').mockImplementationOnce(async (request) => {
      await original(request);
      throw new Error('process died');
    });
    let payout: { id: string; status: string };
    try {
      payout = (await postPayout(t, merchant, service, {})).json();
    } finally {
      spy.mockRestore();
    }
    // An unexpected error may have come after the provider paid: unknown, never failed.
    expect(payout.status).toBe('pending');
    await reconcileDuePayouts(t.deps, soon(6));
    expect((await get(payout.id)).status).toBe('succeeded');
  });
  it('settles a payout whose answer was never recorded (the process died during the call)', async () => {
    const payout = (await postPayout(t, merchant, service, { amount: 1500 })).json();
    // What a crash leaves: the payout and its attempt as recorded before the call.
    await t.deps.db
      .updateTable('payouts')
      .set({ status: 'pending', payment_service_payout_id: null })
      .where('id', '=', payout.id)
      .execute();
    await t.deps.db
      .updateTable('payout_attempts')
      .set({ status: 'in_flight', provider_reference: null, next_check_at: new Date(Date.now() + 5 * 60_000) })
      .where('payout_id', '=', payout.id)
      .execute();
    await reconcileDuePayouts(t.deps, soon(6));
    expect(await get(payout.id)).toMatchObject({
      status: 'succeeded',
      payment_service_payout_id: payout.payment_service_payout_id,
    });
  });

  it('runs the reconcile-payouts job every minute', () => {
    expect(RECURRING.find((r) => r.job.name === 'reconcile-payouts')?.everyMs).toBe(60_000);
  });
});

describe('errors', () => {
  it('asks again later when the status query itself times out', async () => {
    const payout = (await postPayout(t, merchant, service, { amount: 3408 })).json();
    const connector = t.deps.connectors.get('mock-card') as MockCardConnector;
    const { ConnectorError } = await import('../../../connectors/connector.ts');
    const spy = vi.spyOn(connector, 'syncPayout').mockRejectedValue(new ConnectorError('timeout', 'slow'));
    try {
      await reconcileDuePayouts(t.deps, soon(6));
      expect(await attemptOf(payout.id)).toMatchObject({ status: 'unknown', checks: 1 });
      expect((await get(payout.id)).status).toBe('pending');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('security', () => {
  it("sends webhook snapshots with the buyer's billing details masked and no card number", async () => {
    const payout = (
      await postPayout(t, merchant, service, {
        amount: 3077,
        payment_method: payoutCard('5555555555554444'),
        buyer: { display_name: 'Guest', billing_details: { first_name: 'Grace', email_address: 'grace@example.com' } },
      })
    ).json();
    await reconcileDuePayouts(t.deps, soon(6));
    const events = await t.deps.db
      .selectFrom('events')
      .select(['kind', 'payload'])
      .where('resource_id', '=', payout.id)
      .execute();
    expect(events.map((e) => e.kind).sort()).toEqual(['payout.pending', 'payout.succeeded']);
    for (const { payload } of events) {
      expect(JSON.stringify(payload)).not.toContain('grace@example.com');
      expect(JSON.stringify(payload)).not.toContain('5555555555554444');
      expect(payload).toMatchObject({ id: payout.id, buyer: { display_name: 'Guest' } });
    }
  });
});
