import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { evaluateDueMetrics, evaluateMetric } from '../evaluate.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const MINUTE = 60_000;
const silent = { warn: () => undefined };
// Sample minutes count from one fixed minute per test: a test that crossed a minute boundary
// computed later samples' times from the next minute and expected samples one minute off. That
// minute is the next one, so minuteAfter(1) is 60 to 120 s after the test started and a sample
// window ending there holds every transaction the test made, whenever in its minute it started.
let startMinute = 0;
beforeEach(() => {
  startMinute = Math.floor(Date.now() / MINUTE) + 1;
});
const minuteAfter = (n: number) => new Date((startMinute + n) * MINUTE);

const metricBody = (ps: string, extra: object = {}) => ({
  display_name: 'Card auth rate',
  spec: {
    model: 'auth_rate',
    params: { filters: { datetime_range: 'PT60M/now', payment_service_id: [ps], method: ['card'] } },
  },
  alerting_policy: { strategy: 'threshold', params: { alert_gt: null, alert_lt: 0.9 } },
  incident_policy: { strategy: 'debouncing', params: { create_after_n: 2, close_after_n: 2 } },
  ...extra,
});

async function pay(m: string, amounts: number[]) {
  for (const amount of amounts)
    expect((await createTransaction(t, m, { amount, payment_method: card() })).statusCode).toBe(201);
}

const incidentEvents = async (m: string) =>
  (
    await sql<{
      kind: string;
    }>`SELECT kind FROM events WHERE merchant_account_id = ${m} AND resource_type = 'monitoring.incident' ORDER BY created_at`.execute(
      t.deps.db,
    )
  ).rows.map((r) => r.kind);

describe('happy', () => {
  it('samples each minute once, opens an incident after two breaching samples and closes it after two healthy ones', async () => {
    const { merchantAccountId: m, paymentServiceId: ps } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const created = await t.request({
      method: 'POST',
      url: '/monitoring/metrics',
      merchantAccountId: m,
      payload: metricBody(ps),
    });
    expect(created.statusCode, created.body).toBe(201);
    const metric = created.json();
    expect(metric).toMatchObject({
      type: 'monitoring.metric',
      merchant_account_id: m,
      display_name: 'Card auth rate',
      creator_type: 'private_key',
      samples_view: [],
    });

    await pay(m, [1000, 2005]); // one approved, one declined: 0.5
    expect(await evaluateMetric(t.deps, m, metric.id, minuteAfter(1))).toBe(true);
    expect(await evaluateMetric(t.deps, m, metric.id, minuteAfter(1))).toBe(false);
    expect(await incidentEvents(m)).toEqual([]);
    // Two evaluators racing on the same minute take one sample between them.
    const raced = await Promise.all([
      evaluateMetric(t.deps, m, metric.id, minuteAfter(2)),
      evaluateMetric(t.deps, m, metric.id, minuteAfter(2)),
    ]);
    expect(raced.filter(Boolean)).toHaveLength(1);
    const incidents = (
      await t.request({ method: 'GET', url: `/monitoring/metrics/${metric.id}/incidents`, merchantAccountId: m })
    ).json().items;
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({
      type: 'monitoring.incident',
      metric_id: metric.id,
      display_name: 'Card auth rate',
      closed_at: null,
      notes: null,
    });
    expect(await incidentEvents(m)).toEqual(['monitoring.incident.created']);

    await pay(m, Array(8).fill(1000)); // 9 of 10: 0.9 is not below 0.9
    await evaluateMetric(t.deps, m, metric.id, minuteAfter(3));
    expect(
      (await t.request({ method: 'GET', url: `/monitoring/incidents/${incidents[0].id}`, merchantAccountId: m })).json()
        .closed_at,
    ).toBeNull();
    await evaluateMetric(t.deps, m, metric.id, minuteAfter(4));
    const closed = (
      await t.request({ method: 'GET', url: `/monitoring/incidents/${incidents[0].id}`, merchantAccountId: m })
    ).json();
    expect(closed.closed_at).toBe(minuteAfter(4).toISOString());
    expect(await incidentEvents(m)).toEqual(['monitoring.incident.created', 'monitoring.incident.closed']);

    const withSamples = (
      await t.request({
        method: 'GET',
        url: `/monitoring/metrics/${metric.id}?samples_timestamp_interval=${encodeURIComponent(`PT10M/${minuteAfter(5).toISOString()}`)}`,
        merchantAccountId: m,
      })
    ).json();
    expect(withSamples.samples_view).toEqual([
      { timestamp: minuteAfter(1).toISOString(), value: 0.5, healthy: false, incident_related: true },
      { timestamp: minuteAfter(2).toISOString(), value: 0.5, healthy: false, incident_related: true },
      { timestamp: minuteAfter(3).toISOString(), value: 0.9, healthy: true, incident_related: true },
      { timestamp: minuteAfter(4).toISOString(), value: 0.9, healthy: true, incident_related: true },
    ]);
  });

  it('filters by the spec: transactions of another payment service do not count', async () => {
    const { merchantAccountId: m, paymentServiceId: ps } = await merchantWithMockCard(t);
    const metric = (
      await t.request({
        method: 'POST',
        url: '/monitoring/metrics',
        merchantAccountId: m,
        payload: metricBody('018f0000-0000-7000-8000-000000000001'),
      })
    ).json();
    await pay(m, [2005]);
    await evaluateMetric(t.deps, m, metric.id, minuteAfter(1));
    const samples = (
      await t.request({
        method: 'GET',
        url: `/monitoring/metrics/${metric.id}?samples_timestamp_interval=${encodeURIComponent(`PT5M/${minuteAfter(2).toISOString()}`)}`,
        merchantAccountId: m,
      })
    ).json().samples_view;
    expect(samples).toEqual([
      { timestamp: minuteAfter(1).toISOString(), value: null, healthy: null, incident_related: false },
    ]);
    expect(ps).not.toBe('018f0000-0000-7000-8000-000000000001');
  });

  it('lists with search and cursors, renames, changes policies, annotates incidents, deletes keeping incidents', async () => {
    const { merchantAccountId: m, paymentServiceId: ps } = await merchantWithMockCard(t);
    const a = (
      await t.request({
        method: 'POST',
        url: '/monitoring/metrics',
        merchantAccountId: m,
        payload: metricBody(ps, { display_name: 'EU cards', incident_policy: null }),
      })
    ).json();
    await t.request({
      method: 'POST',
      url: '/monitoring/metrics',
      merchantAccountId: m,
      payload: metricBody(ps, { display_name: 'US cards' }),
    });
    const page = (
      await t.request({
        method: 'GET',
        url: '/monitoring/metrics?samples_timestamp_interval=PT60M/now&limit=1',
        merchantAccountId: m,
      })
    ).json();
    expect(page.items.map((i: { display_name: string }) => i.display_name)).toEqual(['US cards']);
    const next = (
      await t.request({
        method: 'GET',
        url: `/monitoring/metrics?samples_timestamp_interval=PT60M/now&limit=1&cursor=${page.next_cursor}`,
        merchantAccountId: m,
      })
    ).json();
    expect(next.items.map((i: { id: string }) => i.id)).toEqual([a.id]);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/monitoring/metrics?samples_timestamp_interval=PT60M/now&search=eu',
          merchantAccountId: m,
        })
      ).json().items,
    ).toHaveLength(1);

    const renamed = (
      await t.request({
        method: 'PUT',
        url: `/monitoring/metrics/${a.id}`,
        merchantAccountId: m,
        payload: {
          display_name: 'EU card rate',
          alerting_policy: { strategy: 'threshold', params: { alert_gt: null, alert_lt: 0.99 } },
        },
      })
    ).json();
    expect(renamed).toMatchObject({
      display_name: 'EU card rate',
      alerting_policy: { params: { alert_lt: 0.99 } },
      spec: a.spec,
    });
    expect(renamed.alerting_policy_updated_at > a.alerting_policy_updated_at).toBe(true);
    expect(renamed.incident_policy_updated_at).toBe(a.incident_policy_updated_at);

    await pay(m, [2005]);
    expect(await evaluateDueMetrics(t.deps, minuteAfter(1), silent)).toBeGreaterThanOrEqual(2);
    const incident = (
      await t.request({ method: 'GET', url: `/monitoring/metrics/${a.id}/incidents`, merchantAccountId: m })
    ).json().items[0];
    expect(incident.display_name).toBe('EU card rate');
    const noted = await t.request({
      method: 'PUT',
      url: `/monitoring/incidents/${incident.id}`,
      merchantAccountId: m,
      payload: { notes: 'Issuer outage, see ticket 42' },
    });
    expect(noted.json().notes).toBe('Issuer outage, see ticket 42');

    const deleted = await t.request({ method: 'DELETE', url: `/monitoring/metrics/${a.id}`, merchantAccountId: m });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().id).toBe(a.id);
    expect(
      (await t.request({ method: 'GET', url: `/monitoring/metrics/${a.id}`, merchantAccountId: m })).statusCode,
    ).toBe(404);
    const kept = (
      await t.request({ method: 'GET', url: `/monitoring/incidents/${incident.id}`, merchantAccountId: m })
    ).json();
    expect(kept).toMatchObject({
      metric_id: null,
      display_name: 'EU card rate',
      notes: 'Issuer outage, see ticket 42',
    });
    const audit = (
      await t.request({ method: 'GET', url: '/audit-logs?resource_type=monitoring.metric', merchantAccountId: m })
    ).json();
    expect(audit.items.map((i: { action: string }) => i.action).sort()).toEqual([
      'created',
      'created',
      'deleted',
      'updated',
    ]);
  });
});

describe('errors', () => {
  it('refuses windows outside 5 to 60 minutes, thresholds without a bound, and bad policies', async () => {
    const { merchantAccountId: m, paymentServiceId: ps } = await merchantWithMockCard(t);
    const window = (range: string) =>
      metricBody(ps, { spec: { model: 'auth_rate', params: { filters: { datetime_range: range } } } });
    for (const range of ['PT2M/now', 'PT2H/now']) {
      const res = await t.request({
        method: 'POST',
        url: '/monitoring/metrics',
        merchantAccountId: m,
        payload: window(range),
      });
      expect(res.statusCode, range).toBe(400);
      expect(res.json().details[0]).toMatchObject({ location: 'body', pointer: '/spec/params/filters/datetime_range' });
      expect(res.json().message).toMatch(/5 to 60 minutes/);
    }
    const noBound = await t.request({
      method: 'POST',
      url: '/monitoring/metrics',
      merchantAccountId: m,
      payload: metricBody(ps, {
        alerting_policy: { strategy: 'threshold', params: { alert_gt: null, alert_lt: null } },
      }),
    });
    expect(noBound.statusCode).toBe(400);
    const tooMany = await t.request({
      method: 'POST',
      url: '/monitoring/metrics',
      merchantAccountId: m,
      payload: metricBody(ps, {
        incident_policy: { strategy: 'debouncing', params: { create_after_n: 11, close_after_n: 1 } },
      }),
    });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail[0].loc).toEqual(['body', 'incident_policy', 'params', 'create_after_n']);
    const bin = await t.request({
      method: 'POST',
      url: '/monitoring/metrics',
      merchantAccountId: m,
      payload: metricBody(ps, {
        spec: { model: 'auth_rate', params: { filters: { datetime_range: 'PT5M/now', payment_method_bin: ['4111'] } } },
      }),
    });
    expect(bin.statusCode).toBe(422);
    const missing = await t.request({ method: 'GET', url: '/monitoring/metrics', merchantAccountId: m });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['query', 'samples_timestamp_interval']);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: '/monitoring/incidents/018f0000-0000-7000-8000-000000000000',
          merchantAccountId: m,
          payload: {},
        })
      ).statusCode,
    ).toBe(422);
  });
});

describe('security', () => {
  let m: string;
  let ps: string;
  beforeAll(async () => {
    ({ merchantAccountId: m, paymentServiceId: ps } = await merchantWithMockCard(t));
  });
  runScopeTests(() => t, {
    request: () => ({ method: 'POST', url: '/monitoring/metrics', merchantAccountId: m, payload: metricBody(ps) }),
    scope: 'monitoring.write',
  });
  runScopeTests(() => t, {
    request: () => ({ method: 'GET', url: '/monitoring/incidents', merchantAccountId: m }),
    scope: 'monitoring.read',
  });

  it('another merchant account neither sees nor changes a metric or its incidents, and its sample counts only its own transactions', async () => {
    const metric = (
      await t.request({ method: 'POST', url: '/monitoring/metrics', merchantAccountId: m, payload: metricBody(ps) })
    ).json();
    const other = await createMerchantAccount(t.deps);
    for (const req of [
      { method: 'GET' as const, url: `/monitoring/metrics/${metric.id}` },
      { method: 'PUT' as const, url: `/monitoring/metrics/${metric.id}`, payload: { display_name: 'x' } },
      { method: 'DELETE' as const, url: `/monitoring/metrics/${metric.id}` },
      { method: 'GET' as const, url: `/monitoring/metrics/${metric.id}/incidents` },
    ]) {
      expect((await t.request({ ...req, merchantAccountId: other })).statusCode, `${req.method} ${req.url}`).toBe(404);
    }
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/monitoring/metrics?samples_timestamp_interval=PT60M/now',
          merchantAccountId: other,
        })
      ).json().items,
    ).toEqual([]);
    expect(
      (await t.request({ method: 'GET', url: `/monitoring/metrics/${metric.id}`, merchantAccountId: m })).json()
        .display_name,
    ).toBe('Card auth rate');
  });
});
