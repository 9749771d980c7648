import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { drainUntil, startReceiver, type Receiver } from '../../../../test/helpers/webhook-receiver.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { attemptDelivery } from '../../events/deliveries.service.ts';
import { emitEvent } from '../../events/events.service.ts';

let t: TestApp;
let receiver: Receiver;
let m: string;
let sub: { id: string };
beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  m = await createMerchantAccount(t.deps);
  receiver.respondWith(200);
  sub = await subscribeToEvents(t, m, receiver.url);
});

const emit = (resourceId: string, kind = 'transaction.updated') =>
  withTransaction(t.deps.db, (tx) =>
    emitEvent(tx, t.deps, {
      merchantAccountId: m,
      kind,
      resourceType: 'transaction',
      resourceId,
      payload: { id: resourceId },
    }),
  );
const drain = () => t.deps.queue.drain(t.deps);
const list = (query = '') =>
  t.request({ method: 'GET', url: `/webhook-subscriptions/${sub.id}/deliveries${query}`, merchantAccountId: m });
const attempts = (id: string) =>
  t.request({ method: 'GET', url: `/webhook-subscriptions/${sub.id}/deliveries/${id}/attempts`, merchantAccountId: m });
const retry = (id: string) =>
  t.request({ method: 'POST', url: `/webhook-subscriptions/${sub.id}/deliveries/${id}/retry`, merchantAccountId: m });
const setActive = (active: boolean) =>
  t.request({ method: 'PUT', url: `/webhook-subscriptions/${sub.id}`, payload: { active }, merchantAccountId: m });

/** A delivery that failed: the subscription went inactive after a failed attempt. */
async function failedDelivery(): Promise<string> {
  receiver.respondWith(500);
  await emit('tx-1');
  await drain();
  expect((await setActive(false)).statusCode).toBe(200);
  const id = (await list()).json().items[0].id;
  // The next attempt, an hour later: it finds the subscription inactive and stops the delivery.
  await attemptDelivery(t.deps, m, id, new Date(Date.now() + 3600_000));
  expect((await setActive(true)).statusCode).toBe(200);
  return id;
}

describe('happy', () => {
  it('lists deliveries newest first with their event, status and attempts, page by page', async () => {
    await emit('tx-1', 'transaction.created');
    await emit('tx-1', 'transaction.captured');
    await drainUntil(t.deps, async () =>
      (await list()).json().items.every((d: { status: string }) => d.status === 'succeeded'),
    );
    await emit('tx-2', 'transaction.created');
    const first = await list('?limit=2');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().items).toMatchObject([
      {
        type: 'webhook-delivery',
        subscription_id: sub.id,
        event_kind: 'transaction.created',
        resource_id: 'tx-2',
        status: 'pending',
        attempts: 0,
        next_attempt_at: expect.any(String),
      },
      {
        event_kind: 'transaction.captured',
        resource_id: 'tx-1',
        status: 'succeeded',
        attempts: 1,
        last_status_code: 200,
        next_attempt_at: null,
        delivered_at: expect.any(String),
      },
    ]);
    const second = await list(`?limit=2&cursor=${first.json().next_cursor}`);
    expect(second.json().items).toMatchObject([
      { event_kind: 'transaction.created', resource_id: 'tx-1', status: 'succeeded' },
    ]);
    expect(second.json().next_cursor).toBeNull();
  });

  it('lists the attempts of a delivery, newest first', async () => {
    receiver.respondWith(503);
    await emit('tx-1');
    await drain();
    const id = (await list()).json().items[0].id;
    const res = await attempts(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      items: [
        {
          type: 'webhook-delivery-attempt',
          id: expect.any(String),
          delivery_id: id,
          status_code: 503,
          duration_ms: expect.any(Number),
          error: 'HTTP 503',
          created_at: expect.any(String),
        },
      ],
    });
  });

  it('sends a failed delivery again', async () => {
    const id = await failedDelivery();
    expect((await list()).json().items[0]).toMatchObject({
      status: 'failed',
      last_error: 'the subscription is inactive',
    });
    receiver.respondWith(200);
    const res = await retry(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'pending', next_attempt_at: expect.any(String) });
    expect(Date.parse(res.json().give_up_at)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    await drain();
    expect((await list()).json().items[0]).toMatchObject({
      id,
      status: 'succeeded',
      attempts: 2,
      last_status_code: 200,
    });
    expect((await attempts(id)).json().items.map((a: { status_code: number }) => a.status_code)).toEqual([200, 500]);
  });
});

describe('errors', () => {
  it('refuses to send again a pending or succeeded delivery (400)', async () => {
    await emit('tx-1');
    const pending = (await list()).json().items[0].id;
    expect((await retry(pending)).json()).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: expect.stringContaining('pending'),
    });
    await drain();
    expect((await retry(pending)).json()).toMatchObject({ status: 400, message: expect.stringContaining('succeeded') });
  });

  it('answers 404 for an unknown subscription or delivery', async () => {
    const unknown = '0190d5a3-0000-7000-8000-000000000000';
    expect(
      (await t.request({ method: 'GET', url: `/webhook-subscriptions/${unknown}/deliveries`, merchantAccountId: m }))
        .statusCode,
    ).toBe(404);
    expect((await attempts(unknown)).statusCode).toBe(404);
    expect((await retry(unknown)).statusCode).toBe(404);
  });

  it('answers 422 for an id that is not a UUID', async () => {
    expect((await attempts('nope')).statusCode).toBe(422);
  });
});

describe('security', () => {
  const someId = '0190d5a3-0000-7000-8000-000000000000';
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.read',
    request: () => ({
      method: 'GET',
      url: `/webhook-subscriptions/${sub.id}/deliveries`,
      headers: { 'x-svc-merchant-account-id': m },
    }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.read',
    request: () => ({
      method: 'GET',
      url: `/webhook-subscriptions/${sub.id}/deliveries/${someId}/attempts`,
      headers: { 'x-svc-merchant-account-id': m },
    }),
  });
  runScopeTests(() => t, {
    scope: 'webhook-subscriptions.write',
    request: () => ({
      method: 'POST',
      url: `/webhook-subscriptions/${sub.id}/deliveries/${someId}/retry`,
      headers: { 'x-svc-merchant-account-id': m },
    }),
  });

  it("answers 404 for another merchant account's delivery", async () => {
    await emit('tx-1');
    const id = (await list()).json().items[0].id;
    const other = await createMerchantAccount(t.deps);
    for (const url of [
      `/webhook-subscriptions/${sub.id}/deliveries`,
      `/webhook-subscriptions/${sub.id}/deliveries/${id}/attempts`,
    ]) {
      expect((await t.request({ method: 'GET', url, merchantAccountId: other })).statusCode).toBe(404);
    }
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/webhook-subscriptions/${sub.id}/deliveries/${id}/retry`,
          merchantAccountId: other,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('never shows the signing secret or the password in the history', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/webhook-subscriptions',
      payload: { url: receiver.url, authentication: { kind: 'basic', username: 'u', password: 'TOPSECRET-pw' } },
      merchantAccountId: m,
    });
    sub = created.json();
    receiver.respondWith(500);
    await emit('tx-1');
    await drain();
    const id = (await list()).json().items[0].id;
    const text = (await list()).body + (await attempts(id)).body;
    expect(text).not.toContain(created.json().secret);
    expect(text).not.toContain('TOPSECRET-pw');
  });
});
