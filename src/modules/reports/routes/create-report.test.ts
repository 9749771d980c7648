import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { postReport } from '../../../../test/helpers/reports.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';

let t: TestApp;
let merchant: string;
beforeAll(async () => {
  t = await buildTestApp();
  merchant = await createMerchantAccount(t.deps);
});
afterAll(async () => t.close());

describe('happy', () => {
  it('creates a once report with its execution at once, creator from the key pair', async () => {
    const res = await postReport(t, merchant, {
      name: 'Yesterday',
      description: 'All of it',
      spec: {
        model: 'transactions',
        params: {
          fields: ['id', 'amount'],
          filters: { created_at: { start: 'day_start', end: 'day_end' } },
          sort: ['-created_at'],
        },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const report = res.json();
    expect(report).toMatchObject({
      type: 'report',
      merchant_account_id: merchant,
      name: 'Yesterday',
      description: 'All of it',
      schedule: 'once',
      schedule_enabled: true,
      schedule_timezone: 'Etc/UTC',
      creator_id: t.keys.id,
      creator_display_name: 'test',
      creator_type: 'private_key',
      next_execution_at: null,
      spec: {
        model: 'transactions',
        params: {
          fields: ['id', 'amount'],
          filters: { created_at: { start: 'day_start', end: 'day_end' } },
          sort: ['-created_at'],
        },
      },
      latest_execution: {
        type: 'report-execution',
        status: 'pending',
        context: { reference_timezone: 'Etc/UTC' },
        error: null,
      },
    });
    expect(Date.parse(report.latest_execution.context.reference_timestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('takes sort as {field, order} objects, as the public API documents it, and keeps the spec as sent', async () => {
    const sort = [{ field: 'created_at', order: 'desc' }, { field: 'amount' }, '-captured_at'];
    const res = await postReport(t, merchant, {
      schedule_enabled: false,
      spec: { model: 'transactions', params: { sort } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().spec).toEqual({ model: 'transactions', params: { sort } });
  });

  it('plans a daily report for the next local midnight and makes no execution yet', async () => {
    const res = await postReport(t, merchant, {
      schedule: 'daily',
      schedule_timezone: 'Asia/Tokyo',
      spec: {
        model: 'detailed_settlement',
        params: { filters: { ingested_at: { start: 'day_start', end: 'day_end' } } },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const next = new Date(res.json().next_execution_at);
    expect(next.getUTCHours()).toBe(15); // 00:00 in Tokyo (+09)
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(res.json().latest_execution).toBeNull();
  });

  it('accepts each model with its filters', async () => {
    for (const spec of [
      {
        model: 'transaction_retries',
        params: { filters: { created_at: { start: '2024-01-01T00:00:00Z', end: null } } },
      },
      {
        model: 'accounts_receivables',
        params: { filters: { timestamp: { start: 'month_start', end: 'month_end' }, currency: ['EUR'] } },
      },
      { model: 'detailed_settlement', params: {} },
      {
        model: 'transactions',
        params: {
          filters: {
            status: ['capture_succeeded'],
            currency: ['USD'],
            amount_gte: 1,
            amount_lte: 10,
            metadata: [{ k: 'v' }],
            merchant_initiated: false,
            country: ['GB'],
          },
        },
      },
    ]) {
      const res = await postReport(t, merchant, { spec, schedule_enabled: false });
      expect(res.statusCode, `${spec.model}: ${res.body}`).toBe(201);
      expect(res.json().spec).toEqual(spec);
    }
  });
});

describe('errors', () => {
  const refused = async (body: Record<string, unknown>) => {
    const res = await postReport(t, merchant, body);
    expect(res.statusCode, res.body).toBe(422);
    return res.json().detail;
  };

  it('names an unknown column, filter, parameter or sort key', async () => {
    expect(await refused({ spec: { model: 'transactions', params: { fields: ['id', 'card_number'] } } })).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'fields', 1], type: 'enum' }),
    ]);
    expect(await refused({ spec: { model: 'transactions', params: { filters: { colour: ['red'] } } } })).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'filters', 'colour'] }),
    ]);
    expect(await refused({ spec: { model: 'transactions', params: { group_by: 'day' } } })).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'group_by'] }),
    ]);
    expect(await refused({ spec: { model: 'transactions', params: { sort: ['-metadata'] } } })).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'sort', 0], type: 'enum' }),
    ]);
    expect(await refused({ spec: { model: 'transaction_retries', params: { filters: { status: ['x'] } } } })).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'filters', 'status'] }),
    ]);
  });

  it('names an unknown sort field, order or key of the object form', async () => {
    const sorted = (sort: unknown[]) => refused({ spec: { model: 'transactions', params: { sort } } });
    expect(
      await sorted([
        { field: 'created_at', order: 'desc' },
        { field: 'card_number', order: 'asc' },
      ]),
    ).toEqual([
      {
        loc: ['body', 'spec', 'params', 'sort', 1, 'field'],
        msg: expect.stringContaining('"created_at"'),
        type: 'enum',
      },
    ]);
    expect(await sorted([{ field: 'amount', order: 'descending' }])).toEqual([
      {
        loc: ['body', 'spec', 'params', 'sort', 0, 'order'],
        msg: 'Input should be one of "asc", "desc"',
        type: 'enum',
      },
    ]);
    expect(await sorted([{ field: 'amount', direction: 'desc' }])).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'sort', 0, 'direction'] }),
    ]);
    expect(await sorted([{ order: 'desc' }])).toEqual([
      expect.objectContaining({ loc: ['body', 'spec', 'params', 'sort', 0, 'field'], type: 'missing' }),
    ]);
    expect(await sorted([7])).toEqual([expect.objectContaining({ loc: ['body', 'spec', 'params', 'sort', 0] })]);
  });

  it('names an unknown model, placeholder or value', async () => {
    expect((await refused({ spec: { model: 'ai_insights', params: {} } }))[0].loc).toEqual(['body', 'spec', 'model']);
    const detail = await refused({
      spec: { model: 'transactions', params: { filters: { created_at: { start: 'yesterday' } } } },
    });
    expect(
      detail.every(
        (d: { loc: unknown[] }) =>
          JSON.stringify(d.loc) === JSON.stringify(['body', 'spec', 'params', 'filters', 'created_at', 'start']),
      ),
    ).toBe(true);
    expect(
      (await refused({ spec: { model: 'transactions', params: { filters: { status: ['paid'] } } } }))[0].loc,
    ).toEqual(['body', 'spec', 'params', 'filters', 'status', 0]);
    expect((await refused({ schedule: 'hourly' }))[0].loc).toEqual(['body', 'schedule']);
  });

  it('refuses an unknown time zone, an open range and a start after its end', async () => {
    expect(await refused({ schedule_timezone: 'Mars/Olympus' })).toEqual([
      {
        loc: ['body', 'schedule_timezone'],
        msg: expect.stringContaining('Unknown time zone "Mars/Olympus"'),
        type: 'value_error',
      },
    ]);
    expect(
      await refused({
        spec: { model: 'transactions', params: { filters: { created_at: { start: null, end: null } } } },
      }),
    ).toEqual([
      {
        loc: ['body', 'spec', 'params', 'filters', 'created_at'],
        msg: expect.stringContaining('cannot both be null'),
        type: 'value_error',
      },
    ]);
    expect(
      await refused({
        spec: {
          model: 'detailed_settlement',
          params: { filters: { posted_at: { start: '2024-02-01T00:00:00Z', end: '2024-01-01T00:00:00Z' } } },
        },
      }),
    ).toEqual([
      {
        loc: ['body', 'spec', 'params', 'filters', 'posted_at', 'start'],
        msg: expect.stringContaining('is after end'),
        type: 'value_error',
      },
    ]);
  });

  it('makes nothing when refused', async () => {
    const other = await createMerchantAccount(t.deps);
    await postReport(t, other, { spec: { model: 'transactions', params: { fields: ['pan'] } } });
    expect((await t.request({ method: 'GET', url: '/reports', merchantAccountId: other })).json().items).toEqual([]);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    scope: 'reports.write',
    request: () => ({
      method: 'POST',
      url: '/reports',
      merchantAccountId: merchant,
      payload: { name: 'x', schedule: 'once', schedule_enabled: false, spec: { model: 'transactions', params: {} } },
    }),
  });

  it('records an audit entry naming the report', async () => {
    const res = await postReport(t, merchant, { name: 'Audited', schedule_enabled: false });
    const logs = (
      await t.request({ method: 'GET', url: '/audit-logs?resource_type=report', merchantAccountId: merchant })
    ).json();
    expect(logs.items).toContainEqual(
      expect.objectContaining({
        action: 'created',
        resource: expect.objectContaining({ type: 'report', id: res.json().id, name: 'Audited' }),
      }),
    );
  });
});
