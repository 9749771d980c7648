import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { pathOf, postReport, runReport } from '../../../../test/helpers/reports.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { newRequestTiming, runWithTiming } from '../../../observability/request-timing.ts';
import { openInstanceSecret } from '../../../vault/instance-secrets.ts';
import { downloadSecret, signDownload } from '../report-download.service.ts';

let t: TestApp;
let m: string;
let done: Awaited<ReturnType<typeof runReport>>;
beforeAll(async () => {
  t = await buildTestApp();
  m = await createMerchantAccount(t.deps);
  // The executions' webhook events are read: written only for a merchant account with a subscription.
  await subscribeToEvents(t, m);
  done = await runReport(t, m, { name: 'Daily sales' });
});
afterAll(async () => t.close());

const urlOf = (
  reportId: string,
  executionId: string,
  payload: Record<string, unknown> | undefined = {},
  merchantAccountId = m,
) =>
  t.request({ method: 'POST', url: `/reports/${reportId}/executions/${executionId}/url`, merchantAccountId, payload });
const eventsOf = async (id: string) =>
  (
    await sql<{
      kind: string;
      payload: Record<string, unknown>;
    }>`SELECT kind, payload FROM events WHERE resource_id = ${id} ORDER BY created_at`.execute(t.deps.db)
  ).rows;

describe('happy', () => {
  it('reads an execution, lists it for its report and across reports with filters', async () => {
    const one = await t.request({
      method: 'GET',
      url: `/report-executions/${done.execution.id}`,
      merchantAccountId: m,
    });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({
      type: 'report-execution',
      id: done.execution.id,
      status: 'succeeded',
      row_count: 0,
      error: null,
      report: {
        type: 'report',
        id: done.report.id,
        name: 'Daily sales',
        merchant_account_id: m,
        creator_type: 'private_key',
        creator_id: t.keys.id,
      },
    });
    const second = await runReport(t, m, { name: 'Weekly refunds' });
    const ids = async (query: string) =>
      (await t.request({ method: 'GET', url: `/report-executions${query}`, merchantAccountId: m }))
        .json()
        .items.map((e: { id: string }) => e.id);
    expect(await ids('')).toEqual([second.execution.id, done.execution.id]);
    expect(await ids('?report_name=sALes')).toEqual([done.execution.id]);
    expect(await ids(`?creator_id=${t.keys.id}&status=succeeded&status=dispatched`)).toHaveLength(2);
    expect(await ids('?status=failed')).toEqual([]);
    expect(await ids(`?created_at_gte=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    const page = (await t.request({ method: 'GET', url: '/report-executions?limit=1', merchantAccountId: m })).json();
    const next = (
      await t.request({
        method: 'GET',
        url: `/report-executions?limit=1&cursor=${encodeURIComponent(page.next_cursor)}`,
        merchantAccountId: m,
      })
    ).json();
    expect(next.items.map((e: { id: string }) => e.id)).toEqual([done.execution.id]);
    const ofReport = await t.request({
      method: 'GET',
      url: `/reports/${second.report.id}/executions`,
      merchantAccountId: m,
    });
    expect(ofReport.json().items.map((e: { id: string }) => e.id)).toEqual([second.execution.id]);
  });

  it('signs a download URL (default 5 minutes) served without a token, and marks the execution dispatched', async () => {
    const res = await urlOf(done.report.id, done.execution.id, undefined);
    expect(res.statusCode, res.body).toBe(200);
    const { url, expires_at } = res.json();
    expect(url).toMatch(
      new RegExp(
        `^${t.config.publicUrl}/report-executions/${done.execution.id}/report\\.csv\\.gz\\?merchant_account_id=.+&expires=\\d+&signature=`,
      ),
    );
    expect(Math.abs(Date.parse(expires_at) - Date.now() - 5 * 60_000)).toBeLessThan(10_000);
    const file = await t.app.inject({ method: 'GET', url: pathOf(url) });
    expect(file.statusCode).toBe(200);
    expect(file.headers).toMatchObject({ 'content-type': 'application/gzip', 'cache-control': 'private, no-store' });
    expect(file.headers['content-disposition']).toBe(`attachment; filename="Daily_sales-${done.execution.id}.csv.gz"`);
    expect(file.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(
      (await t.request({ method: 'GET', url: `/report-executions/${done.execution.id}`, merchantAccountId: m })).json()
        .status,
    ).toBe('dispatched');
    const week = await urlOf(done.report.id, done.execution.id, { expires_in: 10080 });
    expect(Math.abs(Date.parse(week.json().expires_at) - Date.now() - 10080 * 60_000)).toBeLessThan(10_000);
  });

  it('emits report-execution.succeeded with the execution as the API shows it', async () => {
    expect(await eventsOf(done.execution.id)).toEqual([
      {
        kind: 'report-execution.succeeded',
        payload: expect.objectContaining({
          id: done.execution.id,
          status: 'succeeded',
          report: expect.objectContaining({ id: done.report.id }),
        }),
      },
    ]);
  });
});

describe('errors', () => {
  it('fails an execution whose file cannot be stored after its retries, with a documented error and event', async () => {
    const other = await buildTestApp();
    try {
      const mm = await createMerchantAccount(other.deps);
      await subscribeToEvents(other, mm);
      fs.writeFileSync(path.join(other.config.dataDir, 'reports'), 'not a directory');
      const res = await postReport(other, mm);
      for (let i = 0; i < 3; i++) {
        // Due a second ago: the poll compares run_at with the process's clock in milliseconds, and
        // the database's now() (microseconds) can still be ahead of it when the poll follows at once.
        await sql`UPDATE jobs SET run_at = now() - interval '1 second' WHERE name = 'generate-report' AND status = 'queued'`.execute(
          other.deps.db,
        );
        await other.deps.queue.drain(other.deps);
      }
      const execution = (
        await other.request({
          method: 'GET',
          url: `/report-executions/${res.json().latest_execution.id}`,
          merchantAccountId: mm,
        })
      ).json();
      expect(execution).toMatchObject({
        status: 'failed',
        row_count: null,
        error: { code: 'storage_failed', message: expect.any(String) },
      });
      const events = (
        await sql<{ kind: string }>`SELECT kind FROM events WHERE resource_id = ${execution.id}`.execute(other.deps.db)
      ).rows;
      expect(events).toEqual([{ kind: 'report-execution.failed' }]);
      const url = await other.request({
        method: 'POST',
        url: `/reports/${res.json().id}/executions/${execution.id}/url`,
        merchantAccountId: mm,
        payload: {},
      });
      expect(url.statusCode).toBe(400);
      expect(url.json().message).toBe(
        'The report execution is failed: only a succeeded execution has a file to download',
      );
    } finally {
      await other.close();
    }
  });

  it('refuses expires_in outside 1..10080 minutes, and unknown executions', async () => {
    expect((await urlOf(done.report.id, done.execution.id, { expires_in: 0 })).statusCode).toBe(422);
    expect((await urlOf(done.report.id, done.execution.id, { expires_in: 10081 })).json().detail[0]).toMatchObject({
      loc: ['body', 'expires_in'],
      type: 'less_than_equal',
    });
    const other = await runReport(t, m, { name: 'Other' });
    expect((await urlOf(other.report.id, done.execution.id)).statusCode).toBe(404);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/report-executions/00000000-0000-4000-8000-000000000000',
          merchantAccountId: m,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/reports/00000000-0000-4000-8000-000000000000/executions',
          merchantAccountId: m,
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    scope: 'reports.read',
    request: () => ({ method: 'GET', url: `/report-executions/${done.execution.id}`, merchantAccountId: m }),
  });
  runScopeTests(() => t, {
    scope: 'reports.read',
    request: () => ({
      method: 'POST',
      url: `/reports/${done.report.id}/executions/${done.execution.id}/url`,
      merchantAccountId: m,
      payload: {},
    }),
  });

  it('answers 403 to an expired or tampered URL', async () => {
    const { url } = (await urlOf(done.report.id, done.execution.id)).json();
    const u = new URL(url);
    const tamper = (key: string, value: string) => {
      const copy = new URL(u);
      copy.searchParams.set(key, value);
      return t.app.inject({ method: 'GET', url: pathOf(copy.toString()) });
    };
    const later = await tamper('expires', String(Number(u.searchParams.get('expires')) + 3600));
    expect(later.statusCode).toBe(403);
    expect(later.json()).toMatchObject({
      type: 'error',
      code: 'forbidden',
      status: 403,
      message: expect.stringContaining('signature does not match'),
    });
    const sig = u.searchParams.get('signature')!;
    expect((await tamper('signature', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)).statusCode).toBe(403);
    expect((await tamper('merchant_account_id', 'default')).statusCode).toBe(403);
    const elsewhere = pathOf(url).replace(done.execution.id, (await runReport(t, m)).execution.id);
    expect((await t.app.inject({ method: 'GET', url: elsewhere })).statusCode).toBe(403);
    const expired = signDownload(
      t.deps,
      await downloadSecret(t.deps),
      m,
      done.execution.id,
      new Date(Date.now() - 1000),
    );
    const res = await t.app.inject({ method: 'GET', url: pathOf(expired) });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toContain('has expired');
  });

  it('checks a download URL without writing to the database: a bad signature runs no statement, a good one reads only its execution', async () => {
    const statements = (res: { headers: Record<string, unknown> }) =>
      Number(/desc="(\d+) statements"/.exec(String(res.headers['server-timing']))![1]);
    const { url } = (await urlOf(done.report.id, done.execution.id)).json();
    const forged = new URL(url);
    forged.searchParams.set('signature', 'A'.repeat(43));
    for (let i = 0; i < 3; i++) {
      const bad = await t.app.inject({ method: 'GET', url: pathOf(forged.toString()) });
      expect(bad.statusCode).toBe(403);
      expect(statements(bad)).toBe(0);
    }
    const good = await t.app.inject({ method: 'GET', url: pathOf(url) });
    expect(good.statusCode).toBe(200);
    expect(statements(good)).toBe(1);
  });

  it('reads the stored signing secret in one statement, writing only when there is none yet', async () => {
    const timing = newRequestTiming();
    const [first, again] = await runWithTiming(timing, async () => [
      await openInstanceSecret(t.deps.db, t.deps.keyring, 'report_download_secret'),
      await openInstanceSecret(t.deps.db, t.deps.keyring, 'report_download_secret'),
    ]);
    expect(first).toEqual(again);
    expect(first).toEqual(await downloadSecret(t.deps));
    expect(timing.dbStatements).toBe(2);
    const fresh = newRequestTiming();
    const created = await runWithTiming(fresh, () =>
      openInstanceSecret(t.deps.db, t.deps.keyring, `test_secret_${done.execution.id}`),
    );
    expect(created).toHaveLength(32);
    // A read that finds nothing, then the insert, which returns what it stored.
    expect(fresh.dbStatements).toBe(2);
  });

  it("keeps merchant account B away from A's executions", async () => {
    const b = await createMerchantAccount(t.deps);
    expect(
      (await t.request({ method: 'GET', url: `/report-executions/${done.execution.id}`, merchantAccountId: b }))
        .statusCode,
    ).toBe(404);
    expect((await urlOf(done.report.id, done.execution.id, {}, b)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/report-executions', merchantAccountId: b })).json().items).toEqual(
      [],
    );
  });

  it('records an audit entry for each download URL', async () => {
    const logs = (
      await t.request({ method: 'GET', url: '/audit-logs?resource_type=report-execution-url', merchantAccountId: m })
    ).json();
    expect(logs.items[0]).toMatchObject({
      action: 'created',
      resource: { type: 'report-execution-url', id: done.execution.id },
    });
  });
});
