import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const get = (m: string, url: string) => t.request({ method: 'GET', url, merchantAccountId: m });

/**
 * Five transactions: three approved (one with metadata plan=gold), one declined by the issuer, one
 * declined early by a flow rule; the first approved one moved to yesterday.
 */
async function history() {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const rule = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/actions/decline-early/rules',
    merchantAccountId: m,
    payload: {
      conditions: [{ field: 'metadata', key: 'block', operator: 'equals', value: 'yes' }],
      outcome: { reason: 'blocked' },
    },
  });
  expect(rule.statusCode, rule.body).toBe(201);
  const ids: string[] = [];
  for (const body of [{}, { metadata: { plan: 'gold' } }, {}, { amount: 2005 }, { metadata: { block: 'yes' } }]) {
    const res = await createTransaction(t, m, { payment_method: card(), ...body });
    expect(res.statusCode, res.body).toBe(201);
    ids.push(res.json().id);
  }
  await sql`UPDATE transactions SET created_at = created_at - interval '1 day' WHERE merchant_account_id = ${m} AND id = ${ids[0]}`.execute(
    t.deps.db,
  );
  return m;
}

let m: string;
beforeAll(async () => {
  m = await history();
});

describe('happy', () => {
  it('counts transactions per hour over a day, with the previous day and the percentage change', async () => {
    const res = await get(m, '/metrics-explorer/authorization/metrics/transactions/totals?datetime_range=P1D/hour_end');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.series.current.first_interval).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z\/PT1H$/);
    expect(body.series.current.values).toHaveLength(24);
    expect(body.series.current.values.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(body.series.previous.values.reduce((a: number, b: number) => a + b, 0)).toBe(1);
    expect(body.summary).toEqual({ current: { value: 4 }, previous: { value: 1 }, delta: 300 });
  });

  it('counts a transaction once it is answered, not while it awaits its connector (decision 0154)', async () => {
    const own = await history();
    const total = async () =>
      (await get(own, '/metrics-explorer/authorization/metrics/transactions/totals?datetime_range=P1D/hour_end')).json()
        .summary.current.value;
    const newest = await sql<{ id: string }>`SELECT id FROM transactions WHERE merchant_account_id = ${own}
      ORDER BY created_at DESC LIMIT 1`.execute(t.deps.db);
    const set = (status: string, outcome: string | null) =>
      sql`UPDATE transactions SET status = ${status}, intent_outcome = ${outcome}
        WHERE merchant_account_id = ${own} AND id = ${newest.rows[0]!.id}`.execute(t.deps.db);
    await set('processing', null);
    expect(await total()).toBe(3);
    await set('authorization_declined', 'failed');
    expect(await total()).toBe(4);
  });

  it('computes the authorization rate without flow declines, and its absolute change', async () => {
    const res = await get(m, '/metrics-explorer/authorization/metrics/auth_rate/totals?datetime_range=P1D/hour_end');
    expect(res.statusCode, res.body).toBe(200);
    // Today: 2 authorized, 1 issuer decline, 1 flow decline → 2 / (2 + 2 − 1). Yesterday: 1 / 1.
    expect(res.json().summary).toEqual({ current: { value: 0.6667 }, previous: { value: 1 }, delta: -0.3333 });
    expect(res.json().series.current.values.filter((v: number | null) => v !== null)).toEqual([0.6667]);
  });

  it('sums authorized volume in the one currency asked, and leaves out the previous period on request', async () => {
    const res = await get(
      m,
      '/metrics-explorer/authorization/metrics/volume/totals?datetime_range=P7D/now&currency=USD&exclude_previous=true',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().summary).toEqual({ current: { value: 3000 }, previous: null, delta: null });
    expect(res.json().series.previous).toBeNull();
    const eur = await get(
      m,
      '/metrics-explorer/authorization/metrics/volume/totals?datetime_range=P7D/now&currency=EUR',
    );
    expect(eur.json().summary.current.value).toBe(0);
  });

  it('uses days beyond a week and minutes up to two hours', async () => {
    const month = await get(
      m,
      '/metrics-explorer/authorization/metrics/transactions/totals?datetime_range=P30D/now&exclude_previous=true',
    );
    expect(month.json().series.current.first_interval).toMatch(/T00:00:00Z\/P1D$/);
    expect(month.json().series.current.values).toHaveLength(31);
    const hour = await get(
      m,
      '/metrics-explorer/monitoring/metrics/transactions/totals?datetime_range=PT60M/now&exclude_previous=true',
    );
    expect(hour.json().series.current.first_interval).toMatch(/\/PT1M$/);
    expect(hour.json().summary.current.value).toBe(4);
  });

  it('filters by repeated keys, metadata pairs and the NUL character for missing values', async () => {
    const q =
      '/metrics-explorer/authorization/metrics/transactions/totals?datetime_range=P7D/now&exclude_previous=true';
    expect((await get(m, `${q}&error_code=do_not_honor&error_code=flow_decline`)).json().summary.current.value).toBe(2);
    expect((await get(m, `${q}&error_code=%00`)).json().summary.current.value).toBe(3);
    expect((await get(m, `${q}&metadata=${encodeURIComponent('{"plan":"gold"}')}`)).json().summary.current.value).toBe(
      1,
    );
    expect((await get(m, `${q}&authorized=1`)).json().summary.current.value).toBe(3);
    expect((await get(m, `${q}&payment_method_scheme=visa&currency=USD`)).json().summary.current.value).toBe(5);
  });

  it('breaks a metric down by a module, largest first, with display names', async () => {
    const res = await get(
      m,
      '/metrics-explorer/authorization/metrics/transactions/modules/error_code?datetime_range=P7D/now',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      {
        type: 'metrics-explorer.module',
        key: null,
        display_name: null,
        value: 3,
        metadata: { transactions: 3, processed: 3 },
      },
      {
        type: 'metrics-explorer.module',
        key: 'do_not_honor',
        display_name: 'do_not_honor',
        value: 1,
        metadata: { transactions: 1, processed: 1 },
      },
      {
        type: 'metrics-explorer.module',
        key: 'flow_decline',
        display_name: 'flow_decline',
        value: 1,
        metadata: { transactions: 1, processed: 0 },
      },
    ]);
    const services = (
      await get(m, '/metrics-explorer/authorization/metrics/auth_rate/modules/payment_service?datetime_range=P7D/now')
    ).json();
    expect(services.find((s: { display_name: string }) => s.display_name === 'Mock card')).toMatchObject({
      value: 0.75,
      metadata: { transactions: 4, processed: 4 },
    });
    const authorized = (
      await get(m, '/metrics-explorer/authorization/metrics/transactions/modules/authorized?datetime_range=P7D/now')
    ).json();
    expect(
      authorized.map((a: { key: string; display_name: string; value: number }) => [a.key, a.display_name, a.value]),
    ).toEqual([
      ['1', 'Yes', 3],
      ['0', 'No', 2],
    ]);
    const metadata = (
      await get(m, '/metrics-explorer/authorization/metrics/transactions/modules/metadata?datetime_range=P7D/now')
    ).json();
    expect(metadata.map((a: { key: string }) => a.key).sort()).toEqual(['{"block": "yes"}', '{"plan": "gold"}']);
    const countries = (
      await get(
        m,
        '/metrics-explorer/authorization/metrics/transactions/modules/payment_method_country?datetime_range=P7D/now',
      )
    ).json();
    expect(countries).toEqual([
      {
        type: 'metrics-explorer.module',
        key: null,
        display_name: null,
        value: 5,
        metadata: { transactions: 5, processed: 4 },
      },
    ]);
  });

  it('saves, lists, renames and deletes presets, at most ten per source, each change audited', async () => {
    const m2 = await createMerchantAccount(t.deps);
    const url = '/metrics-explorer/authorization/presets';
    const created = await t.request({
      method: 'POST',
      url,
      merchantAccountId: m2,
      payload: {
        display_name: 'Gold',
        metric: 'auth_rate',
        filters: { metadata: ['{"plan":"gold"}'], currency: ['USD'] },
      },
    });
    expect(created.statusCode, created.body).toBe(200);
    const preset = created.json();
    expect(preset).toEqual({
      type: 'metrics-explorer.preset',
      id: expect.any(String),
      merchant_account_id: m2,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      display_name: 'Gold',
      source: 'authorization',
      metric: 'auth_rate',
      filters: { metadata: ['{"plan":"gold"}'], currency: ['USD'] },
    });
    const renamed = await t.request({
      method: 'PUT',
      url: `${url}/${preset.id}`,
      merchantAccountId: m2,
      payload: { display_name: 'Gold plan' },
    });
    expect(renamed.json()).toMatchObject({ id: preset.id, display_name: 'Gold plan', filters: preset.filters });
    expect((await get(m2, url)).json().map((p: { id: string }) => p.id)).toEqual([preset.id]);
    expect((await get(m2, '/metrics-explorer/authentication/presets')).json()).toEqual([]);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.request({
          method: 'POST',
          url,
          merchantAccountId: m2,
          payload: { display_name: `p${i}`, metric: 'transactions', filters: {} },
        }),
      ),
    );
    expect((await get(m2, url)).json()).toHaveLength(10);
    const eleventh = await t.request({
      method: 'POST',
      url,
      merchantAccountId: m2,
      payload: { display_name: 'one more', metric: 'transactions', filters: {} },
    });
    expect(eleventh.statusCode).toBe(400);
    expect(eleventh.json().message).toMatch(/already holds 10 presets/);
    expect((await t.request({ method: 'DELETE', url: `${url}/${preset.id}`, merchantAccountId: m2 })).statusCode).toBe(
      204,
    );
    expect((await get(m2, url)).json()).toHaveLength(9);
    const audit = (await get(m2, '/audit-logs?resource_type=metrics-explorer.preset')).json();
    expect(audit.items.length).toBe(12);
  });
});

describe('errors', () => {
  const totals = '/metrics-explorer/authorization/metrics';
  it('refuses a volume without exactly one currency, naming the field', async () => {
    const res = await get(m, `${totals}/volume/totals?datetime_range=P1D/now`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ location: 'query', pointer: '/currency' }] });
    expect(res.json().message).toMatch(/exactly one currency/);
  });

  it('refuses intervals that do not say when, and windows over a year', async () => {
    for (const [range, message] of [
      ['P7D', /not an interval/],
      ['P1D/P2D', /two durations/],
      ['P1M/now', /years or months/],
      ['P400D/now', /more than 366 days/],
    ] as const) {
      const res = await get(m, `${totals}/transactions/totals?datetime_range=${range}`);
      expect(res.statusCode, range).toBe(400);
      expect(res.json().message).toMatch(message);
      expect(res.json().details[0].pointer).toBe('/datetime_range');
    }
    const missing = await get(m, `${totals}/transactions/totals`);
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['query', 'datetime_range']);
  });

  it('refuses bad filter values, unknown sources, metrics and modules', async () => {
    const bool = await get(m, `${totals}/transactions/totals?datetime_range=P1D/now&authorized=yes`);
    expect(bool.statusCode).toBe(400);
    expect(bool.json().details[0].pointer).toBe('/authorized/0');
    const meta = await get(
      m,
      `${totals}/transactions/totals?datetime_range=P1D/now&metadata=${encodeURIComponent('{"a":"1","b":"2"}')}`,
    );
    expect(meta.json().message).toMatch(/one key and a string value/);
    expect(
      (await get(m, '/metrics-explorer/payments/metrics/transactions/totals?datetime_range=P1D/now')).statusCode,
    ).toBe(422);
    expect((await get(m, `${totals}/revenue/totals?datetime_range=P1D/now`)).statusCode).toBe(422);
    expect((await get(m, `${totals}/transactions/modules/colour?datetime_range=P1D/now`)).statusCode).toBe(422);
    const preset = await t.request({
      method: 'POST',
      url: '/metrics-explorer/authorization/presets',
      merchantAccountId: m,
      payload: { display_name: 'x', metric: 'auth_rate', filters: { merchant_initiated: ['true'] } },
    });
    expect(preset.statusCode).toBe(400);
    expect(preset.json().details[0]).toMatchObject({ location: 'body', pointer: '/filters/merchant_initiated/0' });
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({
      method: 'GET',
      url: '/metrics-explorer/authorization/metrics/transactions/totals?datetime_range=P1D/now',
      merchantAccountId: m,
    }),
    scope: 'metrics-explorer.read',
  });
  runScopeTests(() => t, {
    request: () => ({
      method: 'POST',
      url: '/metrics-explorer/authorization/presets',
      merchantAccountId: m,
      payload: { display_name: 'x', metric: 'transactions', filters: {} },
    }),
    scope: 'metrics-explorer.write',
  });

  it('counts only the calling merchant account, and cannot see or change its presets', async () => {
    const other = await createMerchantAccount(t.deps);
    const res = await get(other, '/metrics-explorer/authorization/metrics/transactions/totals?datetime_range=P7D/now');
    expect(res.json().summary.current.value).toBe(0);
    const preset = (
      await t.request({
        method: 'POST',
        url: '/metrics-explorer/authorization/presets',
        merchantAccountId: m,
        payload: { display_name: 'mine', metric: 'transactions', filters: {} },
      })
    ).json();
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/metrics-explorer/authorization/presets/${preset.id}`,
          merchantAccountId: other,
          payload: { display_name: 'theirs' },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'DELETE',
          url: `/metrics-explorer/authorization/presets/${preset.id}`,
          merchantAccountId: other,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await get(m, '/metrics-explorer/authorization/presets')).json().find((p: { id: string }) => p.id === preset.id)
        .display_name,
    ).toBe('mine');
  });
});
