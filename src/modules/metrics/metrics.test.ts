import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { labelValues, METRICS_TOKEN, sample, scrape } from '../../../test/helpers/metrics.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../test/helpers/transactions.ts';
import { drainUntil, startReceiver, type Receiver } from '../../../test/helpers/webhook-receiver.ts';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({ METRICS_TOKEN, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const MOCK = { payment_service_definition: 'mock-card' };

describe('happy', () => {
  it('serves the Prometheus text format with process and database pool metrics', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE svc_http_request_duration_seconds histogram');
    expect(sample(res.body, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(res.body, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sample(res.body, 'svc_db_pool_connections', { state: 'max' })).toBeGreaterThanOrEqual(1);
    expect(res.body).toMatch(/^svc_db_pool_connections\{state="in_use"\} \d+$/m);
    expect(res.body).toMatch(/^svc_db_pool_waiting \d+$/m);
  });

  it('counts requests and their latency per operationId and status', async () => {
    const before = await scrape(t);
    const labels = { operation: 'listMerchantAccounts', status: '200' };
    await t.request({ method: 'GET', url: '/merchant-accounts' });
    await t.request({ method: 'GET', url: '/merchant-accounts' });
    await t.request({ method: 'GET', url: '/merchant-accounts', token: null });
    const after = await scrape(t);
    expect(sample(after, 'svc_http_requests_total', labels) - sample(before, 'svc_http_requests_total', labels)).toBe(
      2,
    );
    expect(
      sample(after, 'svc_http_request_duration_seconds_count', labels) -
        sample(before, 'svc_http_request_duration_seconds_count', labels),
    ).toBe(2);
    expect(sample(after, 'svc_http_request_duration_seconds_sum', labels)).toBeGreaterThan(
      sample(before, 'svc_http_request_duration_seconds_sum', labels),
    );
    const unauthorized = { operation: 'listMerchantAccounts', status: '401' };
    expect(
      sample(after, 'svc_http_requests_total', unauthorized) - sample(before, 'svc_http_requests_total', unauthorized),
    ).toBe(1);
  });

  it('counts authorizations by outcome and times connector calls per payment service definition', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const before = await scrape(t);
    expect((await createTransaction(t, m, {})).statusCode).toBe(201);
    expect((await createTransaction(t, m, { payment_method: card('4000000000000002') })).statusCode).toBe(201);
    expect((await createTransaction(t, m, { payment_method: card('4000000000000994') })).statusCode).toBe(201);
    const after = await scrape(t);
    const moved = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('svc_authorizations_total', { ...MOCK, outcome: 'authorized' })).toBe(1);
    expect(moved('svc_authorizations_total', { ...MOCK, outcome: 'declined' })).toBe(1);
    expect(moved('svc_authorizations_total', { ...MOCK, outcome: 'unavailable' })).toBe(1);
    expect(moved('svc_connector_call_duration_seconds_count', { ...MOCK, operation: 'authorize', result: 'ok' })).toBe(
      2,
    );
    expect(
      moved('svc_connector_call_duration_seconds_count', { ...MOCK, operation: 'authorize', result: 'unavailable' }),
    ).toBe(1);
  });

  it('shows the webhook backlog and the job queue, then counts the deliveries and the jobs that ran', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const sub = await t.request({
      method: 'POST',
      url: '/webhook-subscriptions',
      merchantAccountId: m,
      payload: { url: receiver.url },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    await t.deps.queue.drain(t.deps);
    const before = await scrape(t);
    expect((await createTransaction(t, m, {})).statusCode).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = await scrape(t);
    expect(sample(waiting, 'svc_webhook_deliveries_pending')).toBeGreaterThanOrEqual(1);
    expect(sample(waiting, 'svc_webhook_oldest_pending_seconds')).toBeGreaterThan(0);
    expect(sample(waiting, 'svc_job_queue_depth', { job: 'deliver-webhook', state: 'due' })).toBeGreaterThanOrEqual(1);
    expect(sample(waiting, 'svc_job_queue_lag_seconds', { job: 'deliver-webhook' })).toBeGreaterThan(0);

    await drainUntil(t.deps, () => receiver.received.some((r) => r.json.merchant_account_id === m));
    const after = await scrape(t);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('svc_webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(moved('svc_jobs_total', { job: 'deliver-webhook', outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(moved('svc_job_start_delay_seconds_count', { job: 'deliver-webhook' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'svc_webhook_deliveries_pending')).toBe(0);
    expect(sample(after, 'svc_webhook_oldest_pending_seconds')).toBe(0);
    expect(sample(after, 'svc_job_queue_depth', { job: 'deliver-webhook', state: 'due' })).toBe(0);

    receiver.respondWith(500);
    try {
      expect((await createTransaction(t, m, {})).statusCode).toBe(201);
      await t.deps.queue.drain(t.deps);
      const failing = await scrape(t);
      expect(
        sample(failing, 'svc_webhook_delivery_attempts_total', { outcome: 'retrying' }) -
          sample(after, 'svc_webhook_delivery_attempts_total', { outcome: 'retrying' }),
      ).toBe(1);
      // The retry is scheduled 30 s later: still pending, no longer due.
      expect(sample(failing, 'svc_webhook_deliveries_pending')).toBe(1);
      expect(sample(failing, 'svc_job_queue_depth', { job: 'deliver-webhook', state: 'scheduled' })).toBe(1);
    } finally {
      receiver.respondWith(200);
    }
  });
});

describe('errors', () => {
  it('refuses a scrape without the metrics token, with a wrong one, or with an API token', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong',
      `Bearer ${METRICS_TOKEN}x`,
      `Bearer ${await t.keys.token()}`,
    ]) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        type: 'error',
        code: 'unauthorized',
        status: 401,
        message: expect.stringContaining('METRICS_TOKEN'),
      });
    }
  });

  it('is off (404 that says how to turn it on) without METRICS_TOKEN', async () => {
    const off = await buildTestApp();
    try {
      const res = await off.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found', message: expect.stringContaining('set METRICS_TOKEN') });
    } finally {
      await off.close();
    }
  });
});

describe('security', () => {
  it('labels series with closed sets only: no ids, merchant account names or paths', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = (await createTransaction(t, m, {})).json();
    await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    await t.request({ method: 'GET', url: `/no-such-path/${txn.id}` });
    const text = await scrape(t);
    expect(text).not.toContain(txn.id);
    expect(text).not.toContain(m);
    // Sample values are numbers such as a CPU time of 0.404111…: only names and labels must not hold card digits.
    const seriesAndComments = text.replace(/^([^#].*) \S+$/gm, '$1');
    expect(seriesAndComments).not.toContain('4111');
    expect(text).not.toContain('4111111111111111');
    for (const operation of labelValues(text, 'svc_http_requests_total', 'operation'))
      expect(operation).toMatch(/^([a-z][A-Za-z]+|unmatched)$/);
    expect(labelValues(text, 'svc_http_requests_total', 'operation')).toContain('unmatched');
  });
});
