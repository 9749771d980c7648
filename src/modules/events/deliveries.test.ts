import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { subscribeToEvents } from '../../../test/helpers/event-subscription.ts';
import { startReceiver, verifyWebhook, type Receiver } from '../../../test/helpers/webhook-receiver.ts';
import { withTransaction } from '../../db/transaction.ts';
import { JOBS } from '../../jobs/index.ts';
import { JobQueue } from '../../jobs/queue.ts';
import { attemptDelivery, retryDelayMs } from './deliveries.service.ts';
import { emitEvent } from './events.service.ts';

let t: TestApp;
let receiver: Receiver;
let m: string;
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
  receiver.received.length = 0;
  receiver.respondWith(200);
});
afterEach(() => vi.useRealTimers());

const MINUTE = 60_000;
/** What the receiver got for this test's merchant account (deliveries of earlier tests may still be retried). */
const mine = () => receiver.received.filter((r) => r.json.merchant_account_id === m);
async function subscribe(extra: object = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/webhook-subscriptions',
    payload: { url: receiver.url, ...extra },
    merchantAccountId: m,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; secret: string };
}
const emit = (
  resourceId: string,
  kind = 'transaction.updated',
  payload: Record<string, unknown> = { id: resourceId },
) =>
  withTransaction(t.deps.db, (tx) =>
    emitEvent(tx, t.deps, { merchantAccountId: m, kind, resourceType: 'transaction', resourceId, payload }),
  );
const drain = () => t.deps.queue.drain(t.deps);
const deliveries = () =>
  t.deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_account_id', '=', m)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
/** Moves the clock the queue and the delivery service read (timers stay real: HTTP timeouts still work). */
function advance(ms: number) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + ms);
}

describe('happy', () => {
  it('POSTs the signed envelope, which the receiver code of docs/webhooks.md accepts', async () => {
    const sub = await subscribe();
    await emit('tx-1', 'transaction.created', { id: 'tx-1', amount: 1299 });
    await drain();
    expect(mine()).toHaveLength(1);
    const [got] = mine();
    expect(got!.json).toEqual({
      id: expect.any(String),
      type: 'event',
      kind: 'transaction.created',
      created_at: expect.any(String),
      merchant_account_id: m,
      resource: { type: 'transaction', id: 'tx-1' },
      payload: { id: 'tx-1', amount: 1299 },
    });
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toMatch(/^svc-payments-webhooks\//);
    expect(got!.headers.authorization).toBeUndefined();
    expect(verifyWebhook(sub.secret, got!.headers, got!.body)).toBe(true);
    expect(verifyWebhook('whsec_other', got!.headers, got!.body)).toBe(false);
    expect(verifyWebhook(sub.secret, got!.headers, got!.body, Date.now() + 6 * MINUTE)).toBe(false);
    expect(await deliveries()).toMatchObject([
      {
        status: 'succeeded',
        attempts: 1,
        last_status_code: 200,
        next_attempt_at: null,
        delivered_at: expect.any(Date),
      },
    ]);
  });

  it('sends basic authentication when configured', async () => {
    await subscribe({ authentication: { kind: 'basic', username: 'hook', password: 'pa55:word' } });
    await emit('tx-1');
    await drain();
    expect(mine()[0]!.headers.authorization).toBe(`Basic ${Buffer.from('hook:pa55:word').toString('base64')}`);
  });

  it('signs with both secrets while rotating', async () => {
    const sub = await subscribe();
    const rotated = await t.request({
      method: 'POST',
      url: `/webhook-subscriptions/${sub.id}/rotate-secret`,
      merchantAccountId: m,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    await emit('tx-1');
    await drain();
    const [got] = mine();
    expect(String(got!.headers['x-svc-webhook-signatures']).split(',')).toHaveLength(2);
    expect(verifyWebhook(sub.secret, got!.headers, got!.body)).toBe(true);
    expect(verifyWebhook(rotated.json().secret, got!.headers, got!.body)).toBe(true);
  });

  it('gives a receiver down for an hour every event, in order per resource', async () => {
    await subscribe();
    receiver.respondWith(503);
    for (const kind of ['transaction.created', 'transaction.updated', 'transaction.captured']) await emit('tx-1', kind);
    await emit('tx-2', 'transaction.created');
    for (let minutes = 0; minutes < 60; minutes += 5) {
      await drain();
      advance(5 * MINUTE);
    }
    // While the first event of tx-1 fails, the later ones of tx-1 are not sent at all.
    expect(
      new Set(
        mine()
          .filter((r) => r.json.resource.id === 'tx-1')
          .map((r) => r.json.kind),
      ),
    ).toEqual(new Set(['transaction.created']));
    receiver.respondWith(200);
    for (let i = 0; i < 20 && (await deliveries()).some((d) => d.status === 'pending'); i++) {
      advance(5 * MINUTE);
      await drain();
    }
    const ok = mine().filter((r) => r.status === 200);
    expect(ok.filter((r) => r.json.resource.id === 'tx-1').map((r) => r.json.kind)).toEqual([
      'transaction.created',
      'transaction.updated',
      'transaction.captured',
    ]);
    expect(ok.filter((r) => r.json.resource.id === 'tx-2')).toHaveLength(1);
    expect((await deliveries()).map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
  });

  it('loses nothing when the process stops between the commit and the delivery', async () => {
    await subscribe();
    await emit('tx-1');
    // A new process: a fresh queue on the same database finds the job written with the event.
    const fresh = new JobQueue({ pollMs: 1000 }, JOBS, { info() {}, warn() {}, error() {} });
    expect(await fresh.drain({ ...t.deps, queue: fresh })).toBeGreaterThan(0);
    expect(mine()).toHaveLength(1);
  });

  it('does nothing for a delivery that already succeeded', async () => {
    await subscribe();
    await emit('tx-1');
    await drain();
    const [delivery] = await deliveries();
    await attemptDelivery(t.deps, m, delivery!.id, new Date(Date.now() + 3600_000));
    expect(mine()).toHaveLength(1);
  });

  it('backs off exponentially with jitter, capped at one hour', () => {
    expect(retryDelayMs(1, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(3, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(30, () => 0.5)).toBe(3_600_000);
    expect(retryDelayMs(1, () => 0)).toBe(24_000);
    expect(retryDelayMs(1, () => 1)).toBe(36_000);
  });
});

describe('errors', () => {
  it('records a failed attempt and retries it later', async () => {
    await subscribe();
    receiver.respondWith(500);
    await emit('tx-1');
    await drain();
    expect(await deliveries()).toMatchObject([
      { status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500' },
    ]);
    await drain();
    expect(mine()).toHaveLength(1);
    receiver.respondWith(204);
    advance(2 * MINUTE);
    await drain();
    expect(await deliveries()).toMatchObject([
      { status: 'succeeded', attempts: 2, last_status_code: 204, last_error: null },
    ]);
  });

  it('gives up after 24 hours of failures', async () => {
    await subscribe();
    receiver.respondWith(500);
    await emit('tx-1');
    for (let hours = 0; hours <= 26; hours++) {
      await drain();
      advance(3600_000);
    }
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null, last_status_code: 500 });
    // Hourly at the end (the clock moves an hour per step here); the last attempt is at the deadline.
    expect(delivery!.attempts).toBeGreaterThanOrEqual(12);
    const last = await t.deps.db
      .selectFrom('webhook_delivery_attempts')
      .select('created_at')
      .where('delivery_id', '=', delivery!.id)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(last.created_at.getTime()).toBeGreaterThanOrEqual(delivery!.created_at.getTime() + 24 * 3600_000);
    expect(mine()).toHaveLength(delivery!.attempts);
  });

  it('records a refused connection as a failed attempt', async () => {
    const closed = await startReceiver();
    await closed.close();
    await subscribeToEvents(t, m, closed.url);
    await emit('tx-1');
    await drain();
    expect(await deliveries()).toMatchObject([
      { status: 'pending', attempts: 1, last_status_code: null, last_error: expect.stringContaining('ECONNREFUSED') },
    ]);
  });
});

describe('security', () => {
  it('refuses at delivery time, under the production rules, a URL on a loopback address, and records it', async () => {
    const sub = await subscribe();
    await t.deps.db
      .updateTable('webhook_subscriptions')
      .set({ url: receiver.url.replace('http:', 'https:') })
      .where('id', '=', sub.id)
      .execute();
    await emit('tx-1');
    const config = t.deps.config as { environment: string; webhookAllowPrivateUrls: string };
    Object.assign(config, { environment: 'production', webhookAllowPrivateUrls: 'none' });
    try {
      await drain();
    } finally {
      Object.assign(config, { environment: 'sandbox', webhookAllowPrivateUrls: 'all' });
    }
    expect(mine()).toHaveLength(0);
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: expect.stringMatching(/^refused: .*loopback/),
    });
    const attempts = await t.deps.db
      .selectFrom('webhook_delivery_attempts')
      .selectAll()
      .where('delivery_id', '=', delivery!.id)
      .execute();
    expect(attempts).toMatchObject([{ status_code: null, duration_ms: 0, error: delivery!.last_error }]);
  });

  it('stops delivering once the subscription is deleted', async () => {
    const sub = await subscribe();
    receiver.respondWith(500);
    await emit('tx-1');
    await drain();
    expect(
      (await t.request({ method: 'DELETE', url: `/webhook-subscriptions/${sub.id}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    receiver.respondWith(200);
    advance(10 * MINUTE);
    await drain();
    expect(mine()).toHaveLength(1);
    expect(await deliveries()).toEqual([]);
  });

  it('stops delivering once the subscription is inactive', async () => {
    const sub = await subscribe();
    receiver.respondWith(500);
    await emit('tx-1');
    await drain();
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/webhook-subscriptions/${sub.id}`,
          payload: { active: false },
          merchantAccountId: m,
        })
      ).statusCode,
    ).toBe(200);
    advance(10 * MINUTE);
    await drain();
    expect(mine()).toHaveLength(1);
    expect(await deliveries()).toMatchObject([
      { status: 'failed', attempts: 1, next_attempt_at: null, last_error: 'the subscription is inactive' },
    ]);
  });

  it('costs a merchant account without subscriptions no delivery', async () => {
    await emit('tx-1');
    expect(await deliveries()).toEqual([]);
    expect(await drain()).toBe(0);
  });
});
