import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { postReport, runReport } from '../../../../test/helpers/reports.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { scheduleDueReports } from '../report-scheduler.service.ts';
import { purgeExpiredReportExecutions } from '../report-retention.service.ts';

let t: TestApp;
let m: string;
beforeAll(async () => {
  t = await buildTestApp();
  m = await createMerchantAccount(t.deps);
});
afterAll(async () => t.close());

const JOB = { jobName: 'schedule-reports', jobId: '00000000-0000-4000-8000-000000000001' };
const executionsOf = async (reportId: string) =>
  (await t.request({ method: 'GET', url: `/reports/${reportId}/executions`, merchantAccountId: m })).json().items;
const makeDue = (reportId: string, at: Date) =>
  sql`UPDATE reports SET next_execution_at = ${at} WHERE id = ${reportId}`.execute(t.deps.db);
const put = (id: string, payload: object, merchantAccountId = m) =>
  t.request({ method: 'PUT', url: `/reports/${id}`, merchantAccountId, payload });

describe('happy', () => {
  it('runs a due report once when schedulers of several processes run at the same moment', async () => {
    const report = (
      await postReport(t, m, {
        schedule: 'daily',
        schedule_timezone: 'Europe/Paris',
        spec: { model: 'transactions', params: { filters: { created_at: { start: 'day_start', end: 'day_end' } } } },
      })
    ).json();
    const due = new Date('2024-03-31T22:00:00.000Z'); // midnight in Paris, the night summer time began
    await makeDue(report.id, due);
    const made = await Promise.all([
      scheduleDueReports(t.deps, new Date(due.getTime() + 1000), JOB),
      scheduleDueReports(t.deps, new Date(due.getTime() + 1000), JOB),
      scheduleDueReports(t.deps, new Date(due.getTime() + 2000), JOB),
    ]);
    expect(made.reduce((a, b) => a + b, 0)).toBe(1);
    const executions = await executionsOf(report.id);
    expect(executions).toHaveLength(1);
    expect(executions[0].context).toEqual({
      reference_timestamp: due.toISOString(),
      reference_timezone: 'Europe/Paris',
    });
    const after = (await t.request({ method: 'GET', url: `/reports/${report.id}`, merchantAccountId: m })).json();
    expect(after.next_execution_at).toBe('2024-04-01T22:00:00.000Z');
    await t.deps.queue.drain(t.deps);
    expect((await executionsOf(report.id))[0].status).toBe('succeeded');
  });

  it('makes each missed run after a restart, one per period, each for its own day', async () => {
    const report = (
      await postReport(t, m, { schedule: 'daily', spec: { model: 'accounts_receivables', params: {} } })
    ).json();
    await makeDue(report.id, new Date('2024-01-01T00:00:00Z'));
    expect(await scheduleDueReports(t.deps, new Date('2024-01-03T12:00:00Z'), JOB)).toBe(3);
    expect((await executionsOf(report.id)).map((e: any) => e.context.reference_timestamp)).toEqual([
      '2024-01-03T00:00:00.000Z',
      '2024-01-02T00:00:00.000Z',
      '2024-01-01T00:00:00.000Z',
    ]);
    expect(await scheduleDueReports(t.deps, new Date('2024-01-03T12:00:00Z'), JOB)).toBe(0);
    // Down for weeks: only the runs of the last 7 days are made.
    expect(await scheduleDueReports(t.deps, new Date('2024-01-30T12:00:00Z'), JOB)).toBe(7);
    expect((await executionsOf(report.id))[0].context.reference_timestamp).toBe('2024-01-30T00:00:00.000Z');
    expect((await executionsOf(report.id))[6].context.reference_timestamp).toBe('2024-01-24T00:00:00.000Z');
  });

  it('pauses with schedule_enabled false and plans from now when switched back on', async () => {
    const report = (
      await postReport(t, m, { schedule: 'weekly', spec: { model: 'detailed_settlement', params: {} } })
    ).json();
    const paused = await put(report.id, {
      schedule_enabled: false,
      name: 'Renamed',
      description: 'Weekly settlements',
    });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({
      name: 'Renamed',
      description: 'Weekly settlements',
      schedule_enabled: false,
      next_execution_at: null,
      schedule: 'weekly',
    });
    await makeDue(report.id, new Date(Date.now() - 1000));
    await scheduleDueReports(t.deps, new Date(), JOB);
    expect(await executionsOf(report.id)).toEqual([]);
    const resumed = (await put(report.id, { schedule_enabled: true, description: null })).json();
    expect(resumed).toMatchObject({ schedule_enabled: true, description: null, name: 'Renamed' });
    expect(new Date(resumed.next_execution_at).getUTCDay()).toBe(1);
    expect(Date.parse(resumed.next_execution_at)).toBeGreaterThan(Date.now());
  });

  it('runs a once report created paused when it is switched on', async () => {
    const report = (await postReport(t, m, { schedule_enabled: false })).json();
    expect(report.latest_execution).toBeNull();
    const on = (await put(report.id, { schedule_enabled: true })).json();
    expect(on).toMatchObject({ next_execution_at: null, latest_execution: { status: 'pending' } });
    expect((await put(report.id, { schedule_enabled: false })).statusCode).toBe(200);
    expect((await put(report.id, { schedule_enabled: true })).json().latest_execution.id).toBe(on.latest_execution.id);
  });

  it('lists reports with name, schedule and schedule_enabled filters', async () => {
    const mm = await createMerchantAccount(t.deps);
    const a = (await postReport(t, mm, { name: 'Monthly Receivables', schedule: 'monthly' })).json();
    const b = (await postReport(t, mm, { name: 'Daily sales', schedule: 'daily', schedule_enabled: false })).json();
    const ids = async (query: string) =>
      (await t.request({ method: 'GET', url: `/reports${query}`, merchantAccountId: mm }))
        .json()
        .items.map((r: { id: string }) => r.id);
    expect(await ids('')).toEqual([b.id, a.id]);
    expect(await ids('?name=receiv')).toEqual([a.id]);
    expect(await ids('?schedule=daily&schedule=weekly')).toEqual([b.id]);
    expect(await ids('?schedule_enabled=false')).toEqual([b.id]);
    expect(await ids('?name=100%25')).toEqual([]);
  });

  it('purges executions and files past the retention', async () => {
    const { execution } = await runReport(t, m);
    const file = path.join(t.config.dataDir, 'reports', m, `${execution.id}.csv.gz`);
    expect(fs.existsSync(file)).toBe(true);
    await sql`UPDATE report_executions SET created_at = now() - interval '91 days' WHERE id = ${execution.id}`.execute(
      t.deps.db,
    );
    expect(await purgeExpiredReportExecutions(t.deps, new Date())).toBe(1);
    expect(fs.existsSync(file)).toBe(false);
    expect(
      (await t.request({ method: 'GET', url: `/report-executions/${execution.id}`, merchantAccountId: m })).statusCode,
    ).toBe(404);
  });
});

describe('errors', () => {
  it('refuses a spec or schedule change, unknown fields are dropped, unknown reports are 404', async () => {
    const report = (await postReport(t, m, { schedule_enabled: false })).json();
    const res = await put(report.id, { schedule: 'daily', spec: { model: 'detailed_settlement', params: {} } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ schedule: 'once', spec: { model: 'transactions' } });
    expect((await put(report.id, { name: '' })).statusCode).toBe(422);
    expect((await put('00000000-0000-4000-8000-000000000000', { name: 'x' })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: '/reports/00000000-0000-4000-8000-000000000000', merchantAccountId: m }))
        .statusCode,
    ).toBe(404);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    scope: 'reports.write',
    request: () => ({
      method: 'PUT',
      url: '/reports/00000000-0000-4000-8000-000000000000',
      merchantAccountId: m,
      payload: { name: 'x' },
    }),
  });
  runScopeTests(() => t, {
    scope: 'reports.read',
    request: () => ({ method: 'GET', url: '/reports', merchantAccountId: m }),
  });

  it("keeps merchant account B away from A's reports", async () => {
    const report = (await postReport(t, m, { name: 'A only', schedule_enabled: false })).json();
    const b = await createMerchantAccount(t.deps);
    expect((await put(report.id, { name: 'taken over' }, b)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `/reports/${report.id}`, merchantAccountId: b })).statusCode).toBe(
      404,
    );
    expect((await t.request({ method: 'GET', url: '/reports', merchantAccountId: b })).json().items).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/reports/${report.id}`, merchantAccountId: m })).json().name).toBe(
      'A only',
    );
  });
});
